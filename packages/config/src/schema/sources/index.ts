/**
 * `sources.<name>` (spec §7): `type` defaults to `http`. A new kind is one file beside these and
 * one line here (and its rules in `rules/sources.ts`).
 */
import * as v from 'valibot';
import { rule } from '../checks.js';
import { kinded, mapOf } from '../kit.js';
import { httpSource } from './http.js';
import { kafkaSource } from './kafka.js';
import { natsSource } from './nats.js';
import { rabbitmqSource } from './rabbitmq.js';

export const sourceKinds = {
  http: httpSource,
  rabbitmq: rabbitmqSource,
  kafka: kafkaSource,
  nats: natsSource,
};

export const sourceSchema = kinded(sourceKinds, 'http');
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

export const sourcesMap = mapOf(sourceSchema, sourceName);
