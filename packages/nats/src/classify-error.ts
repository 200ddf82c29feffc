import { errorClassOf, QueueBoxError, type ErrorClassification } from '@queuebox/core';

/**
 * nats.js errors in core's taxonomy, as the databases classify theirs. Permanent only where the
 * client refused the message itself, so the same message can never be sent as it is: a payload
 * over the server's `max_payload` or a subject it cannot carry. Refused credentials or
 * permissions may be fixed, and a lost connection, a timeout or anything unknown may pass: those
 * are transient, so a retried message waits for the fix instead of being lost to it.
 */
const PERMANENT_NAMES: ReadonlySet<string> = new Set([
  'InvalidArgumentError',
  'InvalidSubjectError',
]);
const AUTH_NAMES: ReadonlySet<string> = new Set([
  'AuthorizationError',
  'PermissionViolationError',
  'UserAuthenticationExpiredError',
]);

export function classifyNatsError(error: unknown): ErrorClassification {
  if (error instanceof QueueBoxError)
    return { errorClass: errorClassOf(error), code: error.code, driverCode: null };
  // By name, not instanceof: a second copy of nats-core in an install would fail the latter.
  const name = error instanceof Error ? error.name : null;
  if (name !== null && PERMANENT_NAMES.has(name))
    return { errorClass: 'permanent', code: 'publish_failed', driverCode: name };
  if (name !== null && AUTH_NAMES.has(name))
    return { errorClass: 'transient', code: 'auth_failed', driverCode: name };
  return { errorClass: 'transient', code: 'publish_failed', driverCode: name };
}
