import {
  brokerError,
  classifyBrokerError,
  type ErrorClassification,
  type QueueBoxError,
} from '@queuebox/core';
import { protocolType, rootCause } from './publisher/publish-failure.js';

/**
 * kafkajs errors in core's taxonomy, as the databases classify theirs. Permanent only where the
 * broker refused the record itself, so the same record can never be sent as it is: too large,
 * invalid, a timestamp or format the topic refuses, or a topic name that is not one. A corrupt
 * record may be the network's doing and an unknown topic may be created, so both stay
 * transient; refused credentials or authorization may be fixed (`auth_failed`, transient); a lost
 * connection, a timeout or anything unknown is transient, so a retried row waits for the fix.
 */
const CODES = {
  permanent: new Set([
    'MESSAGE_TOO_LARGE',
    'RECORD_LIST_TOO_LARGE',
    'INVALID_RECORD',
    'UNSUPPORTED_FOR_MESSAGE_FORMAT',
    'INVALID_TIMESTAMP',
    'INVALID_TOPIC_EXCEPTION',
  ]),
  auth: new Set([
    'TOPIC_AUTHORIZATION_FAILED',
    'CLUSTER_AUTHORIZATION_FAILED',
    'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
    'SASL_AUTHENTICATION_FAILED',
    'ILLEGAL_SASL_STATE',
    'UNSUPPORTED_SASL_MECHANISM',
    'KafkaJSSASLAuthenticationError',
  ]),
};

export function classifyKafkaError(error: unknown): ErrorClassification {
  const root = rootCause(error);
  // The broker's error type where it answered; else the kafkajs error's own name.
  const driverCode =
    protocolType(root) ?? (root instanceof Error && root.name !== 'Error' ? root.name : null);
  return classifyBrokerError(error, driverCode, CODES);
}

/**
 * The client's error as a QueueBoxError with `message` as its text: code and `retryable` from
 * classifyKafkaError, the client's error as its cause.
 */
export function kafkaError(error: unknown, message: string): QueueBoxError {
  return brokerError(error, message, classifyKafkaError(error));
}
