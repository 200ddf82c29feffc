/** `type: kafka` destinations (spec §6.3). */
import * as v from 'valibot';
import { notBlank, rule } from '../checks.js';
import { integer, oneOf, optSecret, optStr, str, text } from '../scalars.js';
import { addressFrom, destinationCommon } from './common.js';

export const KAFKA_SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
/** The smallest Kafka publish budget that leaves room for the request timeout (spec §6.3). */
export const MINIMUM_KAFKA_TIMEOUT_MS = 2000;

/** Shared with Kafka sources; a `SASL_*` protocol needs the other three (destination rules). */
export const kafkaSecurity = {
  securityProtocol: oneOf(KAFKA_SECURITY_PROTOCOLS, 'PLAINTEXT'),
  saslMechanism: optStr(),
  saslUsername: optStr(),
  saslPassword: optSecret(),
};

export const kafkaDestination = {
  bootstrapServers: v.pipe(text, notBlank),
  topic: optStr(),
  topicFrom: addressFrom(),
  keyTemplate: str('{{ key }}'),
  timeoutMs: v.optional(
    v.pipe(
      integer({ ms: true }),
      rule<number>((value) =>
        value < MINIMUM_KAFKA_TIMEOUT_MS
          ? `must be at least ${MINIMUM_KAFKA_TIMEOUT_MS}; the Kafka producer needs the delivery timeout to stay above the request timeout`
          : undefined,
      ),
    ),
    '30000',
  ),
  ...kafkaSecurity,
  ...destinationCommon,
};
