/**
 * What an application may write into the outbox (spec §3.2, §4.7), and the checks that stop
 * what it must not write before the row reaches the database: the types refuse QueueBox's own
 * columns at compile time, and `toRow` refuses them again at run time (for callers in plain
 * JavaScript, or values typed `any`), each with an error that says what to do instead.
 */

/** Fields every outbox message may carry besides its payload. */
export interface OutboxMessageFields {
  /** The routing topic (required; at most 255 characters). */
  readonly topic: string;
  /** The row id (a UUID); a random one when left out. `enqueue` returns it either way. */
  readonly id?: string;
  /** The ordering unit (also the Kafka partition key by default); null for none. */
  readonly key?: string | null;
  /** Message headers: a JSON object of string values. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Used by address templates (`{aggregateType}`); null for none. */
  readonly aggregateType?: string | null;
  /** Not delivered before this time (a delay); now when left out. */
  readonly scheduledAt?: Date;
  /** The delivery ceiling of this row (a whole number ≥ 1); the column default 5 when left out. */
  readonly maxAttempts?: number;
  /** A new row is pending; no other state may be written (spec §4.7). */
  readonly state?: 'pending';
  /** Written by QueueBox only (spec §4.7): never set by an application. */
  readonly attempt?: never;
  readonly claimedAt?: never;
  readonly claimToken?: never;
  readonly leaseExpiresAt?: never;
  readonly lastError?: never;
  readonly sequence?: never;
  readonly createdAt?: never;
  readonly updatedAt?: never;
}

/** A payload as a JavaScript value, serialized with JSON.stringify. */
export interface OutboxValuePayload {
  /** Any JSON value: an object, array, number, string, boolean or null. */
  readonly payload: unknown;
  readonly payloadJson?: never;
}

/** A payload as JSON text, sent as it is: numbers past 2^53 keep every digit. */
export interface OutboxTextPayload {
  /** JSON text, such as `{"amount":12345678901234567890}`. */
  readonly payloadJson: string;
  readonly payload?: never;
}

export type OutboxMessage = OutboxMessageFields & (OutboxValuePayload | OutboxTextPayload);

/** One row's values as the insert binds them (text, or null for the column default). */
export interface OutboxRow {
  readonly id: string;
  readonly topic: string;
  readonly key: string | null;
  readonly aggregateType: string | null;
  readonly payload: string;
  readonly headers: string | null;
  readonly maxAttempts: string | null;
  readonly scheduledAt: string | null;
}

const QUEUEBOX_COLUMNS = new Set([
  'attempt',
  'claimedAt',
  'claimToken',
  'leaseExpiresAt',
  'lastError',
  'sequence',
  'createdAt',
  'updatedAt',
]);
const FIELDS = new Set([
  'topic',
  'id',
  'key',
  'headers',
  'aggregateType',
  'scheduledAt',
  'maxAttempts',
  'state',
  'payload',
  'payloadJson',
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_TEXT = 255;
const MAX_INTEGER = 2_147_483_647;

/** Checks one message and renders the values the insert binds; throws a TypeError or RangeError. */
export function toRow(message: OutboxMessage, newId: () => string, at = 'The message'): OutboxRow {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new TypeError(`${at} must be an object with a topic and a payload.`);
  }
  for (const field of Object.keys(message)) {
    if (QUEUEBOX_COLUMNS.has(field)) {
      throw new TypeError(
        `${at} sets '${field}', which QueueBox writes itself: an application never writes it (spec §4.7). Leave it out.`,
      );
    }
    if (!FIELDS.has(field)) {
      throw new TypeError(
        `${at} has the unknown field '${field}'; the fields are ${[...FIELDS].join(', ')}.`,
      );
    }
  }
  const m = message as OutboxMessageFields & { payload?: unknown; payloadJson?: unknown };
  if (m.state !== undefined && m.state !== 'pending') {
    throw new TypeError(
      `${at} sets state '${String(m.state)}': a new outbox row is 'pending', and no other state may be written (spec §4.7). Leave it out.`,
    );
  }
  return {
    id: id(m.id, at),
    topic: topic(m.topic, at),
    key: optionalText(m.key, 'key', at),
    aggregateType: optionalText(m.aggregateType, 'aggregateType', at),
    payload: payloadText(m, at),
    headers: headers(m.headers, at),
    maxAttempts: maxAttempts(m.maxAttempts, at),
    scheduledAt: scheduledAt(m.scheduledAt, at),
  };

  function id(value: unknown, where: string): string {
    if (value === undefined) return newId();
    if (typeof value !== 'string' || !UUID.test(value)) {
      throw new TypeError(`${where} has the id ${JSON.stringify(value)}, which is not a UUID.`);
    }
    return value;
  }
}

function topic(value: unknown, at: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(`${at} needs a topic: a non-blank string.`);
  }
  return bounded(value, 'topic', at);
}

function optionalText(value: unknown, field: string, at: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    throw new TypeError(`${at} has a ${field} that is not a string (or null).`);
  }
  return bounded(value, field, at);
}

function bounded(value: string, field: string, at: string): string {
  // VARCHAR(255) counts characters, not UTF-16 code units.
  let length = 0;
  for (const _ of value) if (++length > MAX_TEXT) break;
  if (length > MAX_TEXT) {
    throw new RangeError(`${at} has a ${field} longer than ${MAX_TEXT} characters.`);
  }
  return value;
}

function payloadText(
  m: { readonly payload?: unknown; readonly payloadJson?: unknown },
  at: string,
): string {
  const hasValue = 'payload' in m && m.payload !== undefined;
  const hasText = 'payloadJson' in m && m.payloadJson !== undefined;
  if (hasValue && hasText) {
    throw new TypeError(`${at} sets both payload and payloadJson; set one.`);
  }
  if (hasText) {
    if (typeof m.payloadJson !== 'string') {
      throw new TypeError(`${at} has a payloadJson that is not a string of JSON text.`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(m.payloadJson);
    } catch (error: unknown) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new TypeError(`${at} has a payloadJson that is not JSON text: ${reason}`, {
        cause: error,
      });
    }
    refuseEncodedTwice(parsed, at);
    return m.payloadJson;
  }
  if (!hasValue) {
    throw new TypeError(`${at} needs a payload (a JSON value) or a payloadJson (JSON text).`);
  }
  refuseEncodedTwice(m.payload, at);
  let text: string | undefined;
  try {
    text = JSON.stringify(m.payload);
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TypeError(
      `${at} has a payload that JSON.stringify cannot serialize (${reason}); for numbers past 2^53 pass the JSON text as payloadJson.`,
      { cause: error },
    );
  }
  if (text === undefined) {
    throw new TypeError(`${at} has a payload that is not a JSON value (a function or a symbol).`);
  }
  return text;
}

/**
 * Spec §3.2: the payload is a JSON document, not a JSON string holding a document. A string
 * whose text is itself a JSON object or array is the classic mistake of serializing twice
 * (`payload: JSON.stringify(order)`), and the receiver would get a string, not the order.
 */
function refuseEncodedTwice(value: unknown, at: string): void {
  if (typeof value !== 'string') return;
  const text = value.trim();
  if (!(text.startsWith('{') || text.startsWith('['))) return;
  try {
    JSON.parse(text);
  } catch {
    return;
  }
  throw new TypeError(
    `${at} has a payload that is a string of JSON text, which would be stored as a JSON string, not as the document (spec §3.2). Pass the value itself as payload, or the text as payloadJson.`,
  );
}

function headers(value: unknown, at: string): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(
      `${at} has headers that are not an object of string values (null would fail the insert; leave headers out for none).`,
    );
  }
  for (const [name, header] of Object.entries(value)) {
    if (typeof header !== 'string') {
      throw new TypeError(`${at} has the header '${name}', whose value is not a string.`);
    }
  }
  return JSON.stringify(value);
}

function maxAttempts(value: unknown, at: string): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_INTEGER) {
    throw new RangeError(
      `${at} has maxAttempts ${JSON.stringify(value) ?? typeof value}; it must be a whole number from 1 to ${MAX_INTEGER}.`,
    );
  }
  return String(value);
}

function scheduledAt(value: unknown, at: string): string | null {
  if (value === undefined) return null;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new TypeError(`${at} has a scheduledAt that is not a valid Date.`);
  }
  return value.toISOString();
}
