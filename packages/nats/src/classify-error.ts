import {
  brokerError,
  classifyBrokerError,
  type ErrorClassification,
  type QueueBoxError,
} from '@queuebox/core';

/**
 * nats.js errors in core's taxonomy, as the databases classify theirs. Permanent only where the
 * client refused the message itself, so the same message can never be sent as it is: a payload
 * over the server's `max_payload` or a subject it cannot carry. Refused credentials or
 * permissions may be fixed, and a lost connection, a timeout or anything unknown may pass: those
 * are transient. Read by error name, not instanceof: a second copy of nats-core in an install
 * would fail the latter.
 */
const CODES = {
  permanent: new Set(['InvalidArgumentError', 'InvalidSubjectError']),
  auth: new Set([
    'AuthorizationError',
    'PermissionViolationError',
    'UserAuthenticationExpiredError',
  ]),
};

export function classifyNatsError(error: unknown): ErrorClassification {
  return classifyBrokerError(error, error instanceof Error ? error.name : null, CODES);
}

/**
 * The client's error as a QueueBoxError with `message` as its text: code and `retryable` from
 * classifyNatsError, the client's error as its cause.
 */
export function natsError(error: unknown, message: string): QueueBoxError {
  return brokerError(error, message, classifyNatsError(error));
}
