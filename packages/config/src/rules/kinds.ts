/**
 * Rules of the named blocks that name other keys, other blocks or other names: `destinations`
 * (spec §6), the `routes` that name them (spec §5.1, §12.2) and `sources` (spec §7.1–7.3,
 * §7.5–7.8).
 */
import { addressTemplateProblems, SIGNING_HEADERS, senderScheme } from '@queuebox/core';
import { displayPath, type Path } from '../problems.js';
import type {
  RawConfig,
  RawDestination,
  RawHttpDestination,
  RawHttpSource,
  RawSource,
} from '../schema/config.js';
import { isHttpDestination, isHttpSource } from '../schema/raw-kinds.js';
import { parseDuration } from '../values.js';
import type { ContributedKind } from '../schema/contributed.js';
import {
  checkHttpUrl,
  checkInboundAuth,
  checkSecrets,
  requireText,
  rulesForBlock,
  type Rules,
} from './shared.js';

/** The block a broker contributed for `type`; the schema admits no other broker type. */
const brokerOf = (brokers: readonly ContributedKind[], type: string): ContributedKind | undefined =>
  brokers.find((broker) => broker.name === type);

export function checkDestinations(
  config: RawConfig,
  rules: Rules,
  brokers: readonly ContributedKind[],
): void {
  if (rules.blocked(['destinations'])) return;
  for (const [name, destination] of Object.entries(config.destinations)) {
    const path = ['destinations', name];
    if (!rules.blocked(path)) checkDestination(destination, path, rules, brokers);
  }
}

function checkDestination(
  destination: RawDestination,
  path: Path,
  rules: Rules,
  brokers: readonly ContributedKind[],
): void {
  checkRateLimit(destination, path, rules);
  if (isHttpDestination(destination)) {
    const { auth } = destination;
    const at = [...path, 'auth'];
    checkSigning(destination, path, rules);
    checkHttpUrl(
      rules,
      [...path, 'baseUrl'],
      destination.baseUrl,
      `use the 'auth' block (${displayPath(at)}) instead`,
    );
    // The OAuth2 token URL takes baseUrl's rules; a credential belongs in the client keys.
    if (auth?.type !== 'oauth2' || rules.blocked(at)) return;
    const credentials = `set the client credentials in ${displayPath([...at, 'clientId'])} and ${displayPath([...at, 'clientSecret'])}`;
    return checkHttpUrl(rules, [...at, 'tokenUrl'], auth.tokenUrl, credentials);
  }
  const broker = brokerOf(brokers, destination.type);
  if (broker === undefined) return;
  const { templateKey, fromKey } = broker.address;
  const template = destination[templateKey];
  const from = destination[fromKey];
  checkAddress(
    rules,
    path,
    templateKey,
    typeof template === 'string' ? template : null,
    typeof from === 'string' ? from : null,
  );
  broker.block.destination.check?.(destination, path, rulesForBlock(rules));
}

/** A bucket needs its rate; an empty block would limit nothing and look as if it did. */
function checkRateLimit(destination: RawDestination, path: Path, rules: Rules): void {
  const at = [...path, 'rateLimit'];
  const limit = destination.rateLimit;
  if (limit === null || rules.blocked(at)) return;
  const perSecond = [...at, 'perSecond'];
  if (limit.perSecond === null && limit.maxInFlight === null && !rules.has(at)) {
    rules.add(
      at,
      `limits nothing; set ${displayPath(perSecond)} (publishes per second, with ${displayPath([...at, 'burst'])}), ${displayPath([...at, 'maxInFlight'])} (publishes at once), or both, or remove the block`,
    );
  }
  if (limit.burst !== null && limit.perSecond === null && !rules.has(perSecond)) {
    rules.add(
      [...at, 'burst'],
      `needs ${displayPath(perSecond)}: a burst is the tokens a rate saves up; set the rate or remove the burst`,
    );
  }
}

type HttpDestination = RawHttpDestination;

/** A signing destination owns the signing headers: a static copy would never be sent. */
function checkSigning(destination: HttpDestination, path: Path, rules: Rules): void {
  const { signing } = destination;
  const at = [...path, 'signing'];
  if (signing === null || rules.blocked(at)) return;
  checkSecrets(rules, at, signing, true);
  if (rules.has([...path, 'headers'])) return;
  for (const name of Object.keys(destination.headers)) {
    if (SIGNING_HEADERS.includes(name.toLowerCase())) {
      rules.add(
        [...path, 'headers', name],
        `'${name}' is a header QueueBox sets itself when ${displayPath(at)} is set, so this value would never be sent; remove it`,
      );
    }
  }
}

/**
 * The address (`exchange`, `topic`, `subject`) is a template unless `<key>From` names a row
 * column, which then wins; one of the two must be set. A template may only read fields a row has.
 */
function checkAddress(
  rules: Rules,
  path: Path,
  key: string,
  template: string | null,
  from: string | null,
) {
  const at = [...path, key];
  if (rules.has(at)) return;
  if (template === null) {
    if (from === null && !rules.has([...path, `${key}From`]))
      rules.add(at, `required unless ${displayPath([...path, `${key}From`])} is set`);
    return;
  }
  if (from === null) requireText(rules, at, template);
  for (const placeholder of addressTemplateProblems(template)) {
    rules.add(
      at,
      `the placeholder {{ ${placeholder} }} cannot be used in an address; use topic, key, aggregateType, payload.<field> or data.<field>`,
    );
  }
}

export function checkRoutes(config: RawConfig, rules: Rules): void {
  if (rules.blocked(['routes'])) return;
  const destinations = rules.blocked(['destinations']) ? {} : config.destinations;
  const names = Object.keys(destinations);
  config.routes.forEach((route, index) => {
    const destination = ['routes', index, 'destination'];
    if (rules.has(destination)) return;
    // A destination that failed its own checks (no type, say) is reported there.
    if (
      !Object.hasOwn(destinations, route.destination) &&
      !rules.blocked(['destinations', route.destination])
    ) {
      rules.add(
        destination,
        names.length === 0
          ? `names the destination '${route.destination}', but no destinations are configured`
          : `names the destination '${route.destination}', which does not exist; the destinations are ${names.join(', ')}`,
      );
    }
  });
}

/** The relay topic template when `topic` is not set (spec §7.1). */
export function defaultSourceTopic(type: RawSource['type']): string {
  return type === 'http' ? '{{ eventType }}' : '{{ source }}';
}

/** Headers QueueBox never stores (spec §16.1), so a key cannot be read from them. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

export function checkSources(
  config: RawConfig,
  rules: Rules,
  brokers: readonly ContributedKind[],
): void {
  if (rules.blocked(['sources'])) return;
  const httpPaths = new Map<string, string>();
  for (const [name, source] of Object.entries(config.sources)) {
    const path = ['sources', name];
    if (rules.blocked(path)) continue;
    checkShared(name, source, path, rules);
    if (isHttpSource(source)) checkHttp(name, source, path, rules, httpPaths);
    else brokerOf(brokers, source.type)?.block.source.check?.(source, path, rulesForBlock(rules));
  }
}

const key = (path: Path, name: string): string => displayPath([...path, name]);

function checkShared(name: string, source: RawSource, path: Path, rules: Rules): void {
  if (source.consumption === 'push' && !rules.has([...path, 'topic'])) {
    const topic = source.topic ?? defaultSourceTopic(source.type);
    requireText(rules, [...path, 'topic'], source.topic);
    if (topic.includes('eventType') && !hasEventTypeSource(source)) {
      const sourcesText = isHttpSource(source)
        ? `set ${key(path, 'eventTypePath')}, ${key(path, 'eventTypeHeader')} or ${key(path, 'eventTypeExpression')}`
        : `set ${key(path, 'eventTypePath')} or ${key(path, 'eventTypeExpression')}, or set ${key(path, 'eventTypeFromHeader')} to true when every publisher sets the '${source.attributeHeaders.eventType}' header`;
      rules.add(
        [...path, 'topic'],
        `the topic template '${topic}' uses eventType, but source '${name}' has no event type, so the relay would mark every message dead; ${sourcesText}, or write a topic template without eventType`,
      );
    }
  }
  const delayMs =
    source.initialDelay === null || rules.has([...path, 'initialDelay'])
      ? 0
      : (parseDuration(source.initialDelay) ?? 0);
  for (const field of ['scheduledAtHeader', 'scheduledAtPath'] as const) {
    if (source[field] !== null && delayMs === 0 && !rules.has([...path, 'initialDelay'])) {
      rules.add(
        [...path, field],
        `needs ${key(path, 'initialDelay')} greater than 0; a publish time only shifts when a delayed message is released`,
      );
    }
  }
}

function hasEventTypeSource(source: RawSource): boolean {
  if (source.eventTypePath !== null || source.eventTypeExpression !== null) return true;
  return isHttpSource(source) ? source.eventTypeHeader !== null : source.eventTypeFromHeader;
}

type HttpSource = RawHttpSource;

function checkHttp(
  name: string,
  source: HttpSource,
  path: Path,
  rules: Rules,
  paths: Map<string, string>,
): void {
  const routePath = [...path, 'path'];
  if (!rules.has(routePath)) {
    const other = paths.get(source.path);
    if (other !== undefined) {
      rules.add(
        routePath,
        `'${source.path}' is already the path of source '${other}'; each HTTP source needs its own path`,
      );
    } else {
      paths.set(source.path, name);
    }
  }
  const auth = rules.blocked([...path, 'auth']) ? null : source.auth;
  const scheme = auth === null ? undefined : senderScheme(auth.type);
  if (
    source.idempotencyKeyPath === null &&
    source.idempotencyKeyHeader === null &&
    source.idempotencyKeyExpression === null &&
    (scheme?.eventId ?? null) === null
  ) {
    rules.add(
      path,
      `has no idempotency key; set ${key(path, 'idempotencyKeyPath')} to a JSONPath in the body, ${key(path, 'idempotencyKeyHeader')} to a request header, or ${key(path, 'idempotencyKeyExpression')} to a JSONata expression`,
    );
  }
  const authHeader = auth?.type === 'api-key' || auth?.type === 'hmac' ? auth.headerName : null;
  for (const field of [
    'idempotencyKeyHeader',
    'eventTypeHeader',
    'aggregateIdHeader',
    'scheduledAtHeader',
  ] as const) {
    const header = source[field];
    if (typeof header !== 'string') continue;
    if (field !== 'scheduledAtHeader') requireText(rules, [...path, field], header);
    const lower = header.trim().toLowerCase();
    if (CREDENTIAL_HEADERS.includes(lower)) {
      rules.add(
        [...path, field],
        `'${header}' names a credential header, which QueueBox never stores, so the value would never be found; name another header`,
      );
    } else if (scheme?.signatureHeaders.includes(lower) === true) {
      rules.add(
        [...path, field],
        `'${header}' carries the ${auth?.type ?? ''} signature that ${key(path, 'auth')} reads, which QueueBox never stores, so the value would never be found; name another header`,
      );
    } else if (typeof authHeader === 'string' && lower === authHeader.trim().toLowerCase()) {
      rules.add(
        [...path, field],
        `'${header}' is the header that ${key(path, 'auth')}.headerName reads, which QueueBox never stores, so the value would never be found; name another header`,
      );
    }
  }
  if (auth === null) return;
  switch (auth.type) {
    case 'standard-webhooks':
    case 'stripe':
    case 'github':
    case 'shopify':
      return checkSecrets(rules, [...path, 'auth'], auth, auth.type === 'standard-webhooks');
    default:
      return checkInboundAuth(rules, [...path, 'auth'], auth);
  }
}
