import { createHmac } from 'node:crypto';

const DIGESTS = { HmacSHA256: 'sha256', HmacSHA512: 'sha512' } as const;

/**
 * Lower-case hex of the HMAC over the signed bytes (spec §16.1): the raw body, or, when a
 * timestamp is given (`TIMESTAMP_DOT_BODY`), `"<timestamp>."` followed by the raw body. The
 * timestamp is the header text as received, so a sender's own formatting is what is signed.
 */
export function hmacSignature(
  algorithm: keyof typeof DIGESTS,
  secret: string,
  body: Uint8Array,
  timestamp: string | null,
): string {
  const mac = createHmac(DIGESTS[algorithm], Buffer.from(secret, 'utf8'));
  if (timestamp !== null) mac.update(`${timestamp}.`, 'utf8');
  return mac.update(body).digest('hex');
}
