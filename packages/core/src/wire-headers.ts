/**
 * The headers of one outgoing message, built the same way on every destination type: the
 * destination's static headers and the row's, merged by core's `mergeCustomHeaders` (which drops
 * every copy of a header QueueBox owns), then the owned headers with QueueBox's values. A
 * transport says only which names it can carry and how a value goes on its wire.
 */
import { mergeCustomHeaders, RELAYED_ROW_HEADER, type HeaderMap } from './header-precedence.js';
import type { Headers, OutboxMessage } from './model.js';
import { OwnedHeader } from './owned-headers.js';

/** The owned headers as the brokers write them (broker header names are lower case). */
export const BrokerHeader = {
  messageId: OwnedHeader.messageId.toLowerCase(),
  topic: OwnedHeader.topic.toLowerCase(),
  attempt: OwnedHeader.attempt.toLowerCase(),
  messageKey: OwnedHeader.messageKey.toLowerCase(),
} as const;

/** Which header names a transport can carry; every name by default. */
export type HeaderNameRule = (name: string) => boolean;

const ANY_NAME: HeaderNameRule = () => true;

/** A destination's static headers keyed by lower-case name; names the transport cannot carry are skipped. */
export function staticHeaderMap(
  headers: Readonly<Record<string, string>>,
  carries: HeaderNameRule = ANY_NAME,
): HeaderMap {
  const map: HeaderMap = new Map();
  for (const [name, value] of Object.entries(headers)) {
    if (carries(name)) map.set(name.toLowerCase(), [name, value]);
  }
  return map;
}

export interface CustomHeaders {
  /** Lower-case name → entry, in the precedence of `mergeCustomHeaders`. */
  readonly headers: HeaderMap;
  /** Row header names the transport cannot carry, left out, or null. */
  readonly unsent: string[] | null;
  /** The row is one the relay wrote (it holds `x-inbox-id`). */
  readonly relayed: boolean;
}

/** The row's headers merged with the destination's static ones (see the file header). */
export function customHeaders(
  message: Pick<OutboxMessage, 'headers'>,
  staticHeaders: HeaderMap,
  carries: HeaderNameRule = ANY_NAME,
  /** Lower-case names also owned on this publish (the trace context while tracing is on). */
  alsoOwned?: readonly string[],
): CustomHeaders {
  const row: HeaderMap = new Map();
  let unsent: string[] | null = null;
  for (const [name, value] of Object.entries(rowHeaders(message.headers))) {
    if (!carries(name)) {
      (unsent ??= []).push(name);
      continue;
    }
    row.set(name.toLowerCase(), [name, headerText(value)]);
  }
  const relayed = row.has(RELAYED_ROW_HEADER);
  return { headers: mergeCustomHeaders(staticHeaders, null, row, alsoOwned), unsent, relayed };
}

/**
 * Hands over the owned headers in wire order, lower case: the message id, the topic, the
 * attempt, and the key when `withKey` and the row has one (a transport that carries the key
 * elsewhere, as a record key, leaves it out).
 */
export function putOwnedHeaders(
  message: Pick<OutboxMessage, 'id' | 'topic' | 'attempt' | 'key'>,
  withKey: boolean,
  put: (name: string, value: string) => void,
): void {
  put(BrokerHeader.messageId, message.id);
  put(BrokerHeader.topic, message.topic);
  put(BrokerHeader.attempt, String(message.attempt));
  if (withKey && message.key !== null) put(BrokerHeader.messageKey, message.key);
}

/**
 * A row header's value as text: JSON lets an application store any value in the `headers`
 * column, so a value that is not a string is sent as its JSON text (`1`, `true`, `null`).
 */
export function headerText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** Whether the row names any header (most rows name none, and need no merge). */
export function hasRowHeaders(headers: Headers): boolean {
  const object = rowHeaders(headers);
  for (const name in object) if (Object.hasOwn(object, name)) return true;
  return false;
}

/** The `headers` column is JSON: a row may hold an array or a scalar there, which names nothing. */
export function rowHeaders(headers: Headers): Headers {
  return typeof headers === 'object' && headers !== null && !Array.isArray(headers) ? headers : {};
}
