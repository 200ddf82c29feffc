import {
  brokerError,
  classifyBrokerError,
  type ErrorClassification,
  type QueueBoxError,
} from '@queuebox/core';

/**
 * amqplib errors in core's taxonomy, as the databases classify theirs. Permanent only where the
 * broker refused the message itself, so the same message can never be sent as it is: its content
 * is larger than the broker takes (311), or the frame holding it is malformed (501, 502). A lost
 * or refused connection, a missing exchange (it may be declared later), refused access (it may
 * be granted) and anything unknown are transient.
 */
const CODES = {
  permanent: new Set(['311', '501', '502']),
  auth: new Set(['403', '530', 'ACCESS_REFUSED']),
};

export function classifyRabbitError(error: unknown): ErrorClassification {
  return classifyBrokerError(error, driverCodeOf(error), CODES);
}

/** A channel or connection close carries the broker's reply code; a socket error its own code. */
function driverCodeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number') return String(code);
  // A refused login ends the handshake with a text, not a reply code.
  if (error instanceof Error && /login was refused|ACCESS_REFUSED/i.test(error.message))
    return 'ACCESS_REFUSED';
  return typeof code === 'string' && code !== '' ? code : null;
}

/**
 * The client's error as a QueueBoxError with `message` as its text: code and `retryable` from
 * classifyRabbitError, the client's error as its cause.
 */
export function rabbitError(error: unknown, message: string): QueueBoxError {
  return brokerError(error, message, classifyRabbitError(error));
}
