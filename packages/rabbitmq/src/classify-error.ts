import { errorClassOf, QueueBoxError, type ErrorClassification } from '@queuebox/core';

/**
 * amqplib errors in core's taxonomy, as the databases classify theirs. Permanent only where the
 * broker refused the message itself, so the same message can never be sent as it is: its content
 * is larger than the broker takes (311), or the frame holding it is malformed (501, 502). A lost
 * or refused connection, a missing exchange (it may be declared later), refused access (it may
 * be granted) and anything unknown are transient: a retried message waits for the fix, a dead
 * one is lost to it.
 */
const PERMANENT_REPLY_CODES: ReadonlySet<number> = new Set([311, 501, 502]);
const ACCESS_REPLY_CODES: ReadonlySet<number> = new Set([403, 530]);

export function classifyRabbitError(error: unknown): ErrorClassification {
  if (error instanceof QueueBoxError)
    return { errorClass: errorClassOf(error), code: error.code, driverCode: null };
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number') {
    const driverCode = String(code);
    if (PERMANENT_REPLY_CODES.has(code))
      return { errorClass: 'permanent', code: 'publish_failed', driverCode };
    if (ACCESS_REPLY_CODES.has(code))
      return { errorClass: 'transient', code: 'auth_failed', driverCode };
    return { errorClass: 'transient', code: 'publish_failed', driverCode };
  }
  if (error instanceof Error && /login was refused|ACCESS_REFUSED/i.test(error.message))
    return { errorClass: 'transient', code: 'auth_failed', driverCode: null };
  return {
    errorClass: 'transient',
    code: 'publish_failed',
    driverCode: typeof code === 'string' && code !== '' ? code : null,
  };
}
