/**
 * The failure text of a non-2xx response (spec §6.1): `HTTP <code>: <reason phrase>` then
 * ` - <body>`, the body cut to `http.maxErrorBodyBytes` and then sanitized (receivers echo
 * credentials back in error bodies), and the whole text cut to the same bound, because it ends
 * up in `last_error` and in log lines.
 */
import { STATUS_CODES } from 'node:http';
import { sanitize } from '@queuebox/core';

export function reasonPhrase(statusCode: number): string {
  // undici's request API does not expose the phrase the receiver sent; the standard phrase is
  // what the reference's client reported too.
  return STATUS_CODES[statusCode] ?? 'Unknown Status Code';
}

export function httpErrorText(statusCode: number, body: Uint8Array, maxBytes: number): string {
  const head = `HTTP ${statusCode}: ${reasonPhrase(statusCode)}`;
  const text = decodeUtf8Prefix(body, maxBytes);
  const full = text.trim() === '' ? head : `${head} - ${sanitize(text)}`;
  return truncateUtf8(full, maxBytes);
}

/** At most `maxBytes` bytes of `text` in UTF-8, never ending inside a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  // Cheap exit: a UTF-8 character takes at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length <= maxBytes ? text : decodeUtf8Prefix(bytes, maxBytes);
}

/** Decodes the first `maxBytes` bytes; a character cut in half at the end is dropped. */
export function decodeUtf8Prefix(bytes: Uint8Array, maxBytes: number): string {
  const prefix = bytes.length <= maxBytes ? bytes : bytes.subarray(0, maxBytes);
  // `stream: true` holds back an incomplete trailing sequence instead of emitting U+FFFD.
  return new TextDecoder('utf-8').decode(prefix, { stream: true });
}
