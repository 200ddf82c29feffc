/**
 * The headers of one NATS publish (spec §6.4): the destination's static headers and the row's
 * headers, then `x-message-id`, `x-topic`, `x-attempt` and, when the row has a key,
 * `x-message-key`, every value as text.
 *
 * Precedence is core's `mergeCustomHeaders`, as on every destination type: static and row
 * headers merge by lower-case name, the row winning on an application's row and losing on a row
 * the relay wrote (it holds `x-inbox-id`). The four standard headers are QueueBox's own (core's
 * `OwnedHeader`): the merge drops any other copy, in any letter case and on every row, so each
 * goes once with QueueBox's value although NATS headers could hold several.
 *
 * `Nats-*` headers are instructions to the server (`Nats-Msg-Id` deduplicates, `Nats-Rollup`
 * purges a subject or the whole stream, `Nats-Expected-*` refuse a publish). On a relayed row
 * none is sent: a sender must not be able to purge the destination stream. On an application's
 * row they go as written (an application may ask for an expected last sequence), except
 * `Nats-Msg-Id`, which QueueBox sets itself on a JetStream publish (destination-link.ts).
 *
 * What the NATS wire cannot carry: a header name must be printable ASCII without `:` (the
 * client refuses anything else), so another name is left out and reported, as on HTTP; a value
 * holding CR, LF or another control character (tab aside) is sent percent-encoded UTF-8, as on
 * HTTP, since CR and LF would end the header line. Other text goes as UTF-8, as it is.
 */
import {
  customHeaders,
  hasRowHeaders,
  isOwnedHeader,
  putOwnedHeaders,
  staticHeaderMap as carriedStaticHeaders,
  TRACE_HEADERS,
  type HeaderEntry,
  type HeaderMap,
  type OutboxMessage,
} from '@queuebox/core';

/** JetStream's deduplication header; QueueBox sets it from the row on a JetStream publish. */
export const NATS_MSG_ID = 'Nats-Msg-Id';
const NATS_MSG_ID_KEY = NATS_MSG_ID.toLowerCase();

/** `[name, value]` in the order they go on the wire; a name may repeat. */
export type WireHeader = readonly [name: string, value: string];

export interface WireHeaders {
  readonly headers: readonly WireHeader[];
  /** Row header names NATS cannot carry, left out, or null. */
  readonly unsent: string[] | null;
}

/** A destination's static headers keyed by lower-case name; names NATS cannot carry are skipped. */
export function staticHeaderMap(headers: Readonly<Record<string, string>>): HeaderMap {
  return carriedStaticHeaders(
    headers,
    (name) => isNatsHeaderName(name) && name.toLowerCase() !== NATS_MSG_ID_KEY,
  );
}

export function wireHeaders(
  message: OutboxMessage,
  staticHeaders: HeaderMap,
  /** The publish span's context while tracing is on: it replaces every other copy. */
  trace?: readonly HeaderEntry[],
): WireHeaders {
  // Most rows name no header: theirs are the destination's static ones, built once, and the
  // owned ones, with no merge map per message.
  if (trace === undefined && !hasRowHeaders(message.headers)) {
    const headers = [...staticWireHeaders(staticHeaders)];
    putOwnedHeaders(message, true, (name, value) => headers.push([name, wireValue(value)]));
    return { headers, unsent: null };
  }
  const {
    headers: custom,
    unsent,
    relayed,
  } = customHeaders(
    message,
    staticHeaders,
    isNatsHeaderName,
    trace === undefined ? undefined : TRACE_HEADERS,
  );
  const headers: WireHeader[] = [];
  for (const [lower, [name, value]] of custom) {
    if (lower === NATS_MSG_ID_KEY) continue;
    if (relayed && lower.startsWith('nats-')) continue;
    headers.push([name, wireValue(value)]);
  }
  if (trace !== undefined) for (const entry of trace) headers.push(entry);
  putOwnedHeaders(message, true, (name, value) => headers.push([name, wireValue(value)]));
  return { headers, unsent };
}

const staticWire = new WeakMap<HeaderMap, readonly WireHeader[]>();

/**
 * A destination's static headers as a row without headers of its own sends them: what the merge
 * makes of them with an empty row (owned names dropped, the map's order), computed once per map.
 */
function staticWireHeaders(staticHeaders: HeaderMap): readonly WireHeader[] {
  let headers = staticWire.get(staticHeaders);
  if (headers === undefined) {
    headers = [...staticHeaders.values()]
      .filter(([name]) => !isOwnedHeader(name) && name.toLowerCase() !== NATS_MSG_ID_KEY)
      .map(([name, value]): WireHeader => [name, wireValue(value)]);
    staticWire.set(staticHeaders, headers);
  }
  return headers;
}

/** What the nats client takes as a header name: printable ASCII (33-126) without `:`. */
export function isNatsHeaderName(name: string): boolean {
  return NAME.test(name);
}

const NAME = /^[!-9;-~]+$/;
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
/** The characters `encodeURIComponent` leaves as they are. */
const UNRESERVED = /[A-Za-z0-9\-_.!~*'()]/;

/** The value as it can go on the wire (see the file header). */
export function wireValue(value: string): string {
  if (!CONTROL.test(value)) return value;
  let encoded = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded +=
      byte < 0x80 && UNRESERVED.test(char)
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}
