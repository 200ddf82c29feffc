/**
 * `destinations.<name>` (spec §6): `type` is required and selects the keys. A new type is one
 * entry of `destinationKinds` (and its rules in `rules/kinds.ts`).
 */
import { v, kinded, mapOf } from './kit.js';
import { destinationAuthBlock, rateLimitBlock, signingBlock, transformBlock } from './blocks.js';
import {
  amqpUri,
  headerName,
  headerValue,
  noDotSegment,
  nonBlank,
  notOwnedHeader,
} from './checks.js';
import {
  bool,
  integer,
  ms,
  oneOf,
  optOneOf,
  optSecret,
  optText,
  str,
  text,
  textMap,
} from './scalars.js';

/** `<key>From`: the address read from a row column; it wins over the template (destination rules). */
const addressFrom = optOneOf(['aggregate_type', 'topic', 'key']);
/** The smallest Kafka publish budget that leaves room for the request timeout (spec §6.3). */
const MINIMUM_KAFKA_TIMEOUT_MS = 2000;

/** Keys every destination type takes. */
export const destinationCommon = {
  headers: textMap(v.pipe(v.string(), notOwnedHeader)),
  transform: transformBlock,
  rateLimit: rateLimitBlock,
};

/** Shared with Kafka sources; a `SASL_*` protocol needs the other three (destination rules). */
export const kafkaSecurity = {
  securityProtocol: oneOf(['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'], 'PLAINTEXT'),
  saslMechanism: optText,
  saslUsername: optText,
  saslPassword: optSecret,
};

/** Shared with NATS sources; user name and password go together (destination rules). */
export const natsCredentials = { username: optText, password: optSecret, token: optSecret };

export const destinationKinds = {
  // spec §6.1
  http: {
    // The URL rule names where a credential belongs instead, so it is a destination rule.
    baseUrl: text,
    path: v.optional(v.pipe(text, noDotSegment), '/'),
    timeoutMs: ms(30_000),
    auth: destinationAuthBlock,
    signing: signingBlock,
    ...destinationCommon,
    // Each static header goes on every request: one HTTP cannot carry would fail every message.
    headers: textMap(v.pipe(v.string(), headerName), v.pipe(text, headerValue)),
  },
  // spec §6.2
  rabbitmq: {
    url: v.pipe(text, amqpUri),
    // Optional here because `exchangeFrom` wins; "one of the two" is a destination rule.
    exchange: optText,
    exchangeFrom: addressFrom,
    exchangeType: v.optional(nonBlank, 'topic'),
    routingKeyTemplate: str('{{ topic }}'),
    deliveryMode: oneOf(['persistent', 'transient'], 'persistent'),
    ...destinationCommon,
  },
  // spec §6.3
  kafka: {
    bootstrapServers: nonBlank,
    topic: optText,
    topicFrom: addressFrom,
    keyTemplate: str('{{ key }}'),
    timeoutMs: v.optional(
      v.pipe(
        integer({ ms: true }),
        v.check(
          (value) => value >= MINIMUM_KAFKA_TIMEOUT_MS,
          `must be at least ${MINIMUM_KAFKA_TIMEOUT_MS}; the Kafka producer needs the delivery timeout to stay above the request timeout`,
        ),
      ),
      '30000',
    ),
    ...kafkaSecurity,
    ...destinationCommon,
  },
  // spec §6.4
  nats: {
    servers: nonBlank,
    subject: optText,
    subjectFrom: addressFrom,
    jetStream: bool(true),
    timeoutMs: ms(30_000),
    ...natsCredentials,
    ...destinationCommon,
  },
};

export const destinationsMap = mapOf(kinded(destinationKinds));
