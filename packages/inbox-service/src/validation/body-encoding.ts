/**
 * Recognises a compressed body by its leading magic bytes, so a dead row can say "gzip-encoded"
 * instead of "not JSON": a publisher that compresses (or a Content-Encoding that a proxy applied)
 * is the usual cause, and the fix is on the publisher's side. Brotli has no magic bytes and is
 * found only through a Content-Encoding header.
 */

const SIGNATURES: readonly (readonly [name: string, bytes: readonly number[]])[] = [
  ['gzip', [0x1f, 0x8b]],
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['bzip2', [0x42, 0x5a, 0x68]],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['lz4', [0x04, 0x22, 0x4d, 0x18]],
  ['snappy', [0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]],
];

/** The compression format `body` starts with, or undefined. */
export function compressedEncoding(body: Uint8Array): string | undefined {
  for (const [name, bytes] of SIGNATURES) {
    if (body.length >= bytes.length && bytes.every((byte, i) => body[i] === byte)) return name;
  }
  // zlib (deflate): CMF 0x78 and a header checksum that divides by 31.
  if (body.length >= 2 && body[0] === 0x78 && ((body[0] << 8) | body[1]!) % 31 === 0) {
    return 'deflate';
  }
  return undefined;
}

const IDENTITY = new Set(['', 'identity', 'utf-8', 'utf8', '7bit', '8bit', 'binary']);

/** A Content-Encoding header's value as a name for the dead row's reason; undefined for none. */
export function declaredEncoding(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const name = header.trim().toLowerCase();
  if (IDENTITY.has(name)) return undefined;
  // A header value is the sender's text: only a token-like name goes into the reason.
  return /^[a-z0-9][a-z0-9._+-]{0,31}$/.test(name) ? name : 'an unknown encoding';
}
