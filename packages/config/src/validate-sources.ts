/** Rules of `sources` (spec §7.1–7.3, §7.5–7.8). */
import { displayPath, type Path, type Problems } from './problems.js';
import type { RawConfig, RawSource } from './schema.js';
import {
  checkInboundAuth,
  checkJsonPaths,
  checkKafkaSecurity,
  checkNatsCredentials,
  checkTransform,
  requireText,
} from './validate-blocks.js';
import { checkAmqpUrl } from './validate-destinations.js';
import { DURATION_HINT, MAX_INITIAL_DELAY_SECONDS, isBlank, parseDuration } from './values.js';

/** The relay topic template when `topic` is not set (spec §7.1). */
export function defaultSourceTopic(type: RawSource['type']): string {
  return type === 'http' ? '{{ eventType }}' : '{{ source }}';
}

/** Headers QueueBox never stores (spec §16.1), so a key cannot be read from them. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

type FilterRule = NonNullable<RawSource['filter']>['require'][number];

export function validateSources(config: RawConfig, problems: Problems): void {
  const httpPaths = new Map<string, string>();
  for (const [name, source] of Object.entries(config.sources)) {
    const path = ['sources', name];
    validateShared(name, source, path, problems);
    if (source.type === 'http') validateHttp(name, source, path, problems, httpPaths);
    else validateBroker(source, path, problems);
  }
}

/** The width of the inbox `source` column (spec §3.3): every row of the source stores its name. */
const MAX_SOURCE_NAME_LENGTH = 255;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function validateShared(name: string, source: RawSource, path: Path, problems: Problems): void {
  // A name the column cannot hold would fail every store with 500, which senders retry for ever.
  const length = [...name].length;
  if (length > MAX_SOURCE_NAME_LENGTH) {
    problems.add(
      path,
      `the source name is ${length} characters long; the inbox stores it in a ${MAX_SOURCE_NAME_LENGTH}-character column, so use at most ${MAX_SOURCE_NAME_LENGTH}`,
    );
  }
  if (name.includes('\u0000') || LONE_SURROGATE.test(name)) {
    problems.add(
      path,
      'the source name holds a NUL character or half of a surrogate pair, which the inbox cannot store; rename the source',
    );
  }
  const topic = source.topic ?? defaultSourceTopic(source.type);
  if (source.consumption === 'push') {
    requireText(problems, [...path, 'topic'], source.topic);
    if (topic.includes('eventType') && !hasEventTypeSource(source)) {
      const sourcesText =
        source.type === 'http'
          ? `set ${key(path, 'eventTypePath')}, ${key(path, 'eventTypeHeader')} or ${key(path, 'eventTypeExpression')}`
          : `set ${key(path, 'eventTypePath')} or ${key(path, 'eventTypeExpression')}, or set ${key(path, 'eventTypeFromHeader')} to true when every publisher sets the '${source.attributeHeaders.eventType}' header`;
      problems.add(
        [...path, 'topic'],
        `the topic template '${topic}' uses eventType, but source '${name}' has no event type, so the relay would mark every message dead; ${sourcesText}, or write a topic template without eventType`,
      );
    }
  }
  for (const field of [
    'idempotencyKeyPath',
    'aggregateIdPath',
    'eventTypePath',
    'scheduledAtPath',
  ] as const) {
    checkJsonPaths(problems, [...path, field], source[field]);
  }
  for (const field of [
    'idempotencyKeyExpression',
    'aggregateIdExpression',
    'eventTypeExpression',
  ] as const) {
    requireText(problems, [...path, field], source[field]);
  }
  const delayMs = checkInitialDelay(problems, [...path, 'initialDelay'], source.initialDelay);
  requireText(problems, [...path, 'scheduledAtHeader'], source.scheduledAtHeader);
  for (const field of ['scheduledAtHeader', 'scheduledAtPath'] as const) {
    if (source[field] !== null && delayMs === 0 && !problems.has([...path, 'initialDelay'])) {
      problems.add(
        [...path, field],
        `needs ${key(path, 'initialDelay')} greater than 0; a publish time only shifts when a delayed message is released`,
      );
    }
  }
  checkTransform(problems, [...path, 'transform'], source.transform);
  source.filter?.require.forEach((rule, i) =>
    checkRule(problems, [...path, 'filter', 'require', i], rule),
  );
  source.filter?.exclude.forEach((rule, i) =>
    checkRule(problems, [...path, 'filter', 'exclude', i], rule),
  );
}

function hasEventTypeSource(source: RawSource): boolean {
  if (source.eventTypePath !== null || source.eventTypeExpression !== null) return true;
  return source.type === 'http' ? source.eventTypeHeader !== null : source.eventTypeFromHeader;
}

const key = (path: Path, name: string): string => displayPath([...path, name]);

/** Milliseconds of a valid `initialDelay`; 0 when unset or invalid (reported). */
function checkInitialDelay(problems: Problems, path: Path, text: string | null): number {
  if (text === null) return 0;
  const ms = parseDuration(text);
  if (ms === undefined) {
    problems.add(path, `'${text}' is not a duration; ${DURATION_HINT}`);
    return 0;
  }
  if (ms / 1000 > MAX_INITIAL_DELAY_SECONDS) {
    problems.add(
      path,
      `'${text}' is too long; the longest delay is ${MAX_INITIAL_DELAY_SECONDS} seconds`,
    );
    return 0;
  }
  return ms;
}

/** A filter rule names a header and exactly one test (spec §7.3). */
function checkRule(problems: Problems, path: Path, rule: FilterRule): void {
  requireText(problems, [...path, 'header'], rule.header);
  const tests = (['equals', 'in', 'matches', 'exists'] as const).filter(
    (test) => rule[test] !== null,
  );
  if (tests.length !== 1) {
    problems.add(
      path,
      `must set exactly one of equals, in, matches or exists, but it sets ${tests.length === 0 ? 'none' : tests.join(', ')}`,
    );
  }
  if (rule.exists === false) {
    problems.add(
      [...path, 'exists'],
      "false is not allowed; put an 'exists: true' rule under 'exclude' instead",
    );
  }
  if (rule.in?.length === 0) problems.add([...path, 'in'], 'the list must not be empty');
  requireText(problems, [...path, 'matches'], rule.matches);
  if (rule.matches?.includes('***') === true) {
    problems.add(
      [...path, 'matches'],
      `'${rule.matches}' holds '***'; use '*' for one segment and '**' for any text`,
    );
  }
}

type HttpSource = Extract<RawSource, { type: 'http' }>;

function validateHttp(
  name: string,
  source: HttpSource,
  path: Path,
  problems: Problems,
  paths: Map<string, string>,
): void {
  const routePath = [...path, 'path'];
  requireText(problems, routePath, source.path);
  const other = paths.get(source.path);
  if (other !== undefined && !isBlank(source.path)) {
    problems.add(
      routePath,
      `'${source.path}' is already the path of source '${other}'; each HTTP source needs its own path`,
    );
  } else {
    paths.set(source.path, name);
  }
  if (
    source.idempotencyKeyPath === null &&
    source.idempotencyKeyHeader === null &&
    source.idempotencyKeyExpression === null
  ) {
    problems.add(
      path,
      `has no idempotency key; set ${key(path, 'idempotencyKeyPath')} to a JSONPath in the body, ${key(path, 'idempotencyKeyHeader')} to a request header, or ${key(path, 'idempotencyKeyExpression')} to a JSONata expression`,
    );
  }
  const auth = source.auth;
  const authHeader = auth?.type === 'api-key' || auth?.type === 'hmac' ? auth.headerName : null;
  for (const field of [
    'idempotencyKeyHeader',
    'eventTypeHeader',
    'aggregateIdHeader',
    'scheduledAtHeader',
  ] as const) {
    const header = source[field];
    if (header === null) continue;
    if (field !== 'scheduledAtHeader') requireText(problems, [...path, field], header);
    const lower = header.trim().toLowerCase();
    if (CREDENTIAL_HEADERS.includes(lower)) {
      problems.add(
        [...path, field],
        `'${header}' names a credential header, which QueueBox never stores, so the value would never be found; name another header`,
      );
    } else if (authHeader !== null && lower === authHeader.trim().toLowerCase()) {
      problems.add(
        [...path, field],
        `'${header}' is the header that ${key(path, 'auth')}.headerName reads, which QueueBox never stores, so the value would never be found; name another header`,
      );
    }
  }
  checkInboundAuth(problems, [...path, 'auth'], auth);
}

function validateBroker(
  source: Exclude<RawSource, HttpSource>,
  path: Path,
  problems: Problems,
): void {
  for (const header of ['idempotencyKey', 'aggregateId', 'eventType'] as const) {
    requireText(problems, [...path, 'attributeHeaders', header], source.attributeHeaders[header]);
  }
  switch (source.type) {
    case 'rabbitmq':
      requireText(problems, [...path, 'queueName'], source.queueName);
      checkAmqpUrl(problems, [...path, 'connectionUrl'], source.connectionUrl);
      return;
    case 'kafka':
      requireText(problems, [...path, 'bootstrapServers'], source.bootstrapServers);
      if (source.topics?.length === 0)
        problems.add([...path, 'topics'], 'the list must not be empty');
      else if (source.topics?.some(isBlank) === true)
        problems.add([...path, 'topics'], 'must not hold a blank topic');
      requireText(problems, [...path, 'groupId'], source.groupId);
      checkKafkaSecurity(problems, path, source);
      return;
    case 'nats':
      requireText(problems, [...path, 'servers'], source.servers);
      requireText(problems, [...path, 'stream'], source.stream);
      requireText(problems, [...path, 'durable'], source.durable);
      checkNatsCredentials(problems, path, source);
      return;
  }
}
