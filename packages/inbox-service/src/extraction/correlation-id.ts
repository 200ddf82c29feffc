import { randomUUID } from 'node:crypto';

export const MAX_CORRELATION_ID_LENGTH = 128;

/** ISO control characters (Java's `Character.isISOControl`): C0, DEL and C1. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * The correlation id to store for a received message (spec §7.2, §15): the sender's value of
 * core's `CORRELATION_ID_HEADER`, with control characters removed (they would split a text log
 * line or break the echoed header) and cut to 128 characters; a new random UUID when the sender
 * sent none or only blanks. Reading the header is core's `correlationIdOf`; this is what the
 * inbox makes of it.
 */
export function receivedCorrelationId(
  received: string | undefined,
  newId: () => string = randomUUID,
): string {
  if (received === undefined) return newId();
  let value = received.replace(CONTROL_CHARACTERS, '');
  if (value.length > MAX_CORRELATION_ID_LENGTH) {
    value = value.slice(0, MAX_CORRELATION_ID_LENGTH);
    // Never keep half a surrogate pair: it is not valid text in a header, a log or a column.
    if (isHighSurrogate(value.charCodeAt(value.length - 1))) value = value.slice(0, -1);
  }
  return value.trim() === '' ? newId() : value;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
