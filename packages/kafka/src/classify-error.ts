import { errorClassOf, QueueBoxError, type ErrorClassification } from '@queuebox/core';
import { protocolType, rootCause } from './publisher/publish-failure.js';

/**
 * kafkajs errors in core's taxonomy, as the databases classify theirs. Permanent only where the
 * broker refused the record itself, so the same record can never be sent as it is: too large,
 * invalid, a timestamp or format the topic refuses, or a topic name that is not one. A corrupt
 * record may be the network's doing and an unknown topic may be created, so both stay
 * transient; refused credentials or authorization may be fixed (`auth_failed`, transient); a lost
 * connection, a timeout or anything unknown is transient, so a retried row waits for the fix.
 */
const PERMANENT_TYPES: ReadonlySet<string> = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'UNSUPPORTED_FOR_MESSAGE_FORMAT',
  'INVALID_TIMESTAMP',
  'INVALID_TOPIC_EXCEPTION',
]);

const AUTH_TYPES: ReadonlySet<string> = new Set([
  'TOPIC_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'SASL_AUTHENTICATION_FAILED',
  'ILLEGAL_SASL_STATE',
  'UNSUPPORTED_SASL_MECHANISM',
]);

export function classifyKafkaError(error: unknown): ErrorClassification {
  if (error instanceof QueueBoxError)
    return { errorClass: errorClassOf(error), code: error.code, driverCode: null };
  const root = rootCause(error);
  const type = protocolType(root);
  if (type !== undefined && PERMANENT_TYPES.has(type))
    return { errorClass: 'permanent', code: 'publish_failed', driverCode: type };
  if (type !== undefined && AUTH_TYPES.has(type))
    return { errorClass: 'transient', code: 'auth_failed', driverCode: type };
  if (root instanceof Error && root.name === 'KafkaJSSASLAuthenticationError')
    return { errorClass: 'transient', code: 'auth_failed', driverCode: root.name };
  const driverCode = type ?? (root instanceof Error && root.name !== 'Error' ? root.name : null);
  return { errorClass: 'transient', code: 'publish_failed', driverCode };
}
