/**
 * What an HTTP/1.1 header line can carry, so no row can make undici refuse a request:
 *
 * - a name must be an RFC 9110 token (core's `isHeaderToken`); any other name cannot be sent at
 *   all, so the publisher leaves that header out and logs a warning;
 * - a value whose characters are all tab, printable ASCII or Latin-1 (U+0080–U+00FF) goes as it
 *   is, one byte per character: a received header therefore reaches the destination byte for
 *   byte (Node reads header bytes as Latin-1);
 * - any other value (a character above U+00FF, or a control character such as CR, LF or NUL) is
 *   sent percent-encoded UTF-8, exactly as `encodeURIComponent` writes it (`订单-1` →
 *   `%E8%AE%A2%E5%8D%95-1`), so every URL decoder gives the text back, form decoders that read
 *   `+` as a space included. A lone surrogate becomes U+FFFD first, as in any UTF-8 encoder
 *   (`encodeURIComponent` would throw).
 */

const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/;
/** The characters `encodeURIComponent` leaves as they are. */
const UNRESERVED = /[A-Za-z0-9\-_.!~*'()]/;
const HEX = Array.from(
  { length: 256 },
  (_, byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
);

/** The value as it can go on the wire (see the file header). */
export function wireValue(value: string): string {
  return UNSENDABLE.test(value) ? percentEncoded(value) : value;
}

/** A row header's value as text, as on every destination type. */
export { headerText } from '@queuebox/core';

function percentEncoded(value: string): string {
  let encoded = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded += byte < 0x80 && UNRESERVED.test(char) ? char : HEX[byte];
  }
  return encoded;
}
