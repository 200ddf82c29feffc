/**
 * The header list of one HTTP publish (spec §6.1, §16.2): the standard headers first, then the
 * custom headers (static, auth, row) in the precedence of core's `mergeCustomHeaders`. The
 * standard headers QueueBox owns (core's `OwnedHeader`: message id, topic, attempt, key) go once,
 * with QueueBox's values: the merge drops a row's, a static or an auth copy of them in any letter
 * case, so a receiver reading the first or the last line reads the same value (the reference sent
 * a row's copy as a second line; docs/decisions.md).
 *
 * Nothing a row holds can make the request unsendable: the publisher frames its own request, so
 * a row's framing headers (core's `framingHeadersOf`) are left out; a name that is not a token
 * is left out and reported; every value goes in its wire form (wire-headers.ts).
 */
import {
  connectionOptions,
  framingHeadersOf,
  isFramingHeader,
  isHeaderToken,
  mergeCustomHeaders,
  OwnedHeader,
  rowHeaders,
  type HeaderEntry,
  type HeaderMap,
  type Headers,
  type OutboxMessage,
} from '@queuebox/core';
import { headerText, wireValue } from './wire-headers.js';

export interface RequestHeaders {
  /** A flat `[name, value, name, value, ...]` list, the undici form that keeps duplicate names. */
  readonly list: string[];
  /** Row header names that cannot be sent (not a token), or null when every one went out. */
  readonly unsent: string[] | null;
}

/**
 * A destination's static headers in wire form, keyed by lower-case name. The configuration
 * refuses framing headers and bad names there; they are skipped here all the same, so a
 * publisher built from any config never builds a request undici refuses.
 */
export function staticHeaderMap(headers: Readonly<Record<string, string>>): HeaderMap {
  const isFraming = framingHeadersOf(headers);
  const map: HeaderMap = new Map();
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (isFraming(lower) || !isHeaderToken(name)) continue;
    map.set(lower, [name, wireValue(value)]);
  }
  return map;
}

/** The auth header in wire form (an OAuth2 token is whatever the token endpoint returned). */
export function wireEntry(entry: HeaderEntry): HeaderEntry {
  const value = wireValue(entry[1]);
  return value === entry[1] ? entry : [entry[0], value];
}

/**
 * A destination's static headers as they go on a message that has no headers of its own and no
 * auth header: computed once per destination, so such a message merges nothing.
 */
export function staticHeaderList(staticHeaders: HeaderMap): string[] {
  const list: string[] = [];
  for (const [name, value] of mergeCustomHeaders(staticHeaders, null, new Map()).values())
    list.push(name, value);
  return list;
}

/**
 * `staticList`: `staticHeaderList(staticHeaders)`, used as it is for a row without headers when
 * there is no auth header (the common case: no per-message merge at all).
 */
export function requestHeaders(
  message: OutboxMessage,
  staticHeaders: HeaderMap,
  authHeader: HeaderEntry | null,
  staticList?: readonly string[],
  /** Lower-case names the destination also owns (the signing headers where it signs). */
  alsoOwned?: readonly string[],
): RequestHeaders {
  const list = [
    'Content-Type',
    'application/json',
    OwnedHeader.messageId,
    message.id,
    OwnedHeader.topic,
    wireValue(message.topic),
    OwnedHeader.attempt,
    String(message.attempt),
  ];
  if (message.key !== null) list.push(OwnedHeader.messageKey, wireValue(message.key));
  if (authHeader === null && staticList !== undefined && isEmpty(message.headers)) {
    for (const entry of staticList) list.push(entry);
    return { list, unsent: null };
  }

  // One pass over the row (this runs per message); the rare Connection header is undone after.
  const fromRow = rowHeaders(message.headers);
  const row: HeaderMap = new Map();
  let connection: unknown = undefined;
  let unsent: string[] | null = null;
  for (const [name, value] of Object.entries(fromRow)) {
    const lower = name.toLowerCase();
    if (isFramingHeader(lower)) {
      if (lower === 'connection') connection = value;
      continue;
    }
    if (!isHeaderToken(name)) {
      (unsent ??= []).push(name);
      continue;
    }
    row.set(lower, [name, wireValue(headerText(value))]);
  }
  if (typeof connection === 'string') {
    for (const option of connectionOptions(connection)) row.delete(option);
  }
  for (const [name, value] of mergeCustomHeaders(
    staticHeaders,
    authHeader,
    row,
    alsoOwned,
  ).values())
    list.push(name, value);
  return { list, unsent };
}

/** No header to send: `{}`, or a JSON value that names nothing (see core's rowHeaders). */
function isEmpty(headers: Headers): boolean {
  const object = rowHeaders(headers);
  for (const name in object) if (Object.hasOwn(object, name)) return false;
  return true;
}
