/** Keys of every source kind (spec §7.1, §7.3) and of every broker kind (§7.6–7.8). */
import * as v from 'valibot';
import { transformBlock } from '../blocks.js';
import { delay, glob, jsonPaths, notBlank, rule } from '../checks.js';
import { defaulted, listOf, optSection, section } from '../kit.js';
import { bool, boolean, integer, list, oneOf, opt, optStr, text } from '../scalars.js';

const FILTER_TESTS = ['equals', 'in', 'matches', 'exists'] as const;

/** A filter rule names a header and exactly one test (spec §7.3). */
const filterRule = v.pipe(
  section({
    header: v.pipe(text, notBlank),
    equals: optStr(),
    in: opt(
      v.pipe(
        list(),
        rule<string[]>((items) => (items.length === 0 ? 'the list must not be empty' : undefined)),
      ),
    ),
    matches: opt(v.pipe(text, glob('any text'))),
    exists: opt(
      v.pipe(
        boolean,
        rule<boolean>((exists) =>
          exists
            ? undefined
            : "false is not allowed; put an 'exists: true' rule under 'exclude' instead",
        ),
      ),
    ),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    const rule = dataset.value as Partial<Record<(typeof FILTER_TESTS)[number], unknown>>;
    const tests = FILTER_TESTS.filter((test) => rule[test] !== null && rule[test] !== undefined);
    if (tests.length !== 1) {
      addIssue({
        message: `must set exactly one of equals, in, matches or exists, but it sets ${tests.length === 0 ? 'none' : tests.join(', ')}`,
      });
    }
  }),
);

const paths = () => opt(v.pipe(list(), jsonPaths));
const expression = () => opt(v.pipe(text, notBlank));

/** Per-kind defaults (`topic`, `idempotencyKeyPath`) are filled when the AppConfig is built. */
export const sourceShared = {
  consumption: oneOf(['push', 'pull'], 'push'),
  topic: optStr(),
  idempotencyKeyPath: paths(),
  aggregateIdPath: paths(),
  eventTypePath: paths(),
  idempotencyKeyExpression: expression(),
  aggregateIdExpression: expression(),
  eventTypeExpression: expression(),
  initialDelay: opt(v.pipe(text, delay)),
  scheduledAtHeader: opt(v.pipe(text, notBlank)),
  scheduledAtPath: paths(),
  transform: transformBlock,
  filter: optSection({ require: listOf(filterRule), exclude: listOf(filterRule) }),
  // HTTP only; broker kinds accept the key and ignore it (spec §7.1).
  rateLimit: optSection({ requestsPerMinute: integer({ min: 1 }) }),
};

const header = (def: string) => v.optional(v.pipe(text, notBlank), def);

export const brokerShared = {
  eventTypeFromHeader: bool(false),
  attributeHeaders: defaulted({
    idempotencyKey: header('x-idempotency-key'),
    aggregateId: header('x-aggregate-id'),
    eventType: header('x-event-type'),
  }),
};
