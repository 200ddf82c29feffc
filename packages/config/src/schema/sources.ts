/**
 * `sources.<name>` (spec §7): `type` defaults to `http`. `http` is written here; a broker's keys
 * come from its package (`BrokerDescriptor.config`), followed by the keys every broker kind and
 * every source share.
 */
import { v, defaulted, kinded, listOf, mapOf, optSection, section } from './kit.js';
import { sourceAuthBlock, transformBlock } from './blocks.js';
import { delay, glob, jsonPaths, nonBlank, rule } from './checks.js';
import { contributedEntries, type ContributedKind } from './contributed.js';
import { bool, boolean, integer, list, oneOf, opt, optText, text } from './scalars.js';

const FILTER_TESTS = ['equals', 'in', 'matches', 'exists'] as const;

/** A filter rule names a header and exactly one test (spec §7.3). */
const filterRule = v.pipe(
  section({
    header: nonBlank,
    equals: optText,
    in: opt(
      v.pipe(
        list(),
        v.check((items) => items.length > 0, 'the list must not be empty'),
      ),
    ),
    matches: opt(v.pipe(text, glob('any text'))),
    exists: opt(
      v.pipe(
        boolean,
        v.check(
          (exists) => exists,
          "false is not allowed; put an 'exists: true' rule under 'exclude' instead",
        ),
      ),
    ),
  }),
  // Also on a rule with other problems, as the reference does; a rule that is no section sets none.
  v.rawCheck(({ dataset, addIssue }) => {
    const filter = (dataset.value ?? {}) as Partial<Record<(typeof FILTER_TESTS)[number], unknown>>;
    const tests = FILTER_TESTS.filter(
      (test) => filter[test] !== null && filter[test] !== undefined,
    );
    if (tests.length === 1) return;
    addIssue({
      message: `must set exactly one of equals, in, matches or exists, but it sets ${tests.length === 0 ? 'none' : tests.join(', ')}`,
    });
  }),
);

const paths = opt(v.pipe(list(), jsonPaths));
const expression = opt(nonBlank);

/** Keys of every source kind (spec §7.1, §7.3); per-kind defaults are filled by `assemble`. */
export const sourceShared = {
  consumption: oneOf(['push', 'pull'], 'push'),
  topic: optText,
  idempotencyKeyPath: paths,
  aggregateIdPath: paths,
  eventTypePath: paths,
  idempotencyKeyExpression: expression,
  aggregateIdExpression: expression,
  eventTypeExpression: expression,
  initialDelay: opt(v.pipe(text, delay)),
  scheduledAtHeader: opt(nonBlank),
  scheduledAtPath: paths,
  transform: transformBlock,
  filter: optSection({ require: listOf(filterRule), exclude: listOf(filterRule) }),
  // HTTP only; broker kinds accept the key and ignore it (spec §7.1).
  rateLimit: optSection({ requestsPerMinute: integer({ min: 1 }) }),
};

const header = (def: string) => v.optional(nonBlank, def);

/** Keys of every broker kind (spec §7.6–7.8). */
export const brokerShared = {
  eventTypeFromHeader: bool(false),
  attributeHeaders: defaulted({
    idempotencyKey: header('x-idempotency-key'),
    aggregateId: header('x-aggregate-id'),
    eventType: header('x-event-type'),
  }),
};

export const sourceKinds = {
  // spec §7.5, the webhook receiver; the kind of a source without `type`
  http: {
    // A path another source has is a source rule (it names the other source).
    path: nonBlank,
    idempotencyKeyHeader: optText,
    eventTypeHeader: optText,
    aggregateIdHeader: optText,
    auth: sourceAuthBlock,
    ...sourceShared,
  },
};

/** The width of the inbox `source` column (spec §3.3): every row of the source stores its name. */
const MAX_NAME = 255;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// A name the column cannot hold would fail every store with 500, which senders retry for ever.
const sourceName = v.pipe(
  v.string(),
  rule<string>((name) =>
    [...name].length > MAX_NAME
      ? `the source name is ${[...name].length} characters long; the inbox stores it in a ${MAX_NAME}-character column, so use at most ${MAX_NAME}`
      : undefined,
  ),
  rule<string>((name) =>
    name.includes('\u0000') || LONE_SURROGATE.test(name)
      ? 'the source name holds a NUL character or half of a surrogate pair, which the inbox cannot store; rename the source'
      : undefined,
  ),
);

export type HttpSourceEntries = (typeof sourceKinds)['http'];

/** Every source kind: `http` and the kinds the brokers contribute, each with the shared keys. */
export function sourcesMap(brokers: readonly ContributedKind[]) {
  const kinds: Record<string, v.ObjectEntries> = { ...sourceKinds };
  for (const broker of brokers) {
    const own = contributedEntries(broker.block.source);
    kinds[broker.name] = { ...own, ...brokerShared, ...sourceShared };
  }
  return mapOf(kinded(kinds, 'http'), sourceName);
}
