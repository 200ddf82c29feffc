import { senderScheme, type SourceAuthConfig } from '@queuebox/core';

/** Headers that carry credentials on any request, lower-cased. */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
];

/**
 * The header names (lower-cased) an HTTP source never stores, never binds into `$headers` and
 * never accepts as a key header (spec §7.2, §16.1): the fixed credential headers plus the header
 * that the source's api-key or hmac auth reads, or the signature headers of a sender's scheme. Storing them would copy a secret into the inbox,
 * the outbox and every destination the relay forwards to.
 */
export function neverStoredHeaders(auth: SourceAuthConfig | null): ReadonlySet<string> {
  const names = new Set(CREDENTIAL_HEADERS);
  if (auth === null) return names;
  if (auth.type === 'api-key' || auth.type === 'hmac') names.add(auth.headerName.toLowerCase());
  for (const name of senderScheme(auth.type)?.signatureHeaders ?? []) names.add(name);
  return names;
}
