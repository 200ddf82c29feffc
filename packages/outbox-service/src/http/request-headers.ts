/**
 * The header list of one HTTP publish (spec §6.1, §16.2). Standard headers first, then the
 * custom headers merged static < auth < row, the later writer winning. Header names are
 * case-insensitive, so the merge is too (a row `authorization` replaces the auth header). The
 * standard headers are deliberately NOT merged with the custom ones: a row header named like a
 * standard one is sent as a second line, as the reference did.
 */
import type { Headers, OutboxMessage } from '@queuebox/core';

/** Lower-case name → [name as written, value]. */
export type HeaderMap = Map<string, readonly [string, string]>;

export function headerMap(
  ...sources: readonly (Readonly<Record<string, string>> | null)[]
): HeaderMap {
  const merged: HeaderMap = new Map();
  for (const source of sources) {
    if (source === null) continue;
    for (const [name, value] of Object.entries(source))
      merged.set(name.toLowerCase(), [name, value]);
  }
  return merged;
}

/** A flat `[name, value, name, value, ...]` list, the undici form that keeps duplicate names. */
export function requestHeaders(
  message: OutboxMessage,
  staticHeaders: HeaderMap,
  authHeader: readonly [string, string] | null,
  rowHeaders: Headers,
): string[] {
  const list = [
    'Content-Type',
    'application/json',
    'X-Message-Id',
    message.id,
    'X-Topic',
    message.topic,
    'X-Attempt',
    String(message.attempt),
  ];
  if (message.key !== null) list.push('X-Message-Key', message.key);

  const custom = new Map(staticHeaders);
  if (authHeader !== null) custom.set(authHeader[0].toLowerCase(), authHeader);
  for (const [name, value] of Object.entries(rowHeaders))
    custom.set(name.toLowerCase(), [name, value]);
  for (const [lower, [name, value]] of custom) {
    // The body is the publisher's own (the stored jsonb text, or a transform's result), never the
    // bytes a relayed webhook arrived with, so a copied length would not match it.
    if (lower !== 'content-length') list.push(name, value);
  }
  return list;
}
