import type { InboundAuthConfig } from '@queuebox/core';

/** Headers that carry credentials on any request, lower-cased. */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
];

/**
 * The header names (lower-cased) an HTTP source never stores, never binds into `$headers` and
 * never accepts as a key header (spec §7.2, §16.1): the fixed credential headers plus the header
 * that the source's api-key or hmac auth reads. Storing them would copy a secret into the inbox,
 * the outbox and every destination the relay forwards to.
 */
export function neverStoredHeaders(auth: InboundAuthConfig | null): ReadonlySet<string> {
  const names = new Set(CREDENTIAL_HEADERS);
  if (auth !== null && auth.type !== 'bearer') names.add(auth.headerName.toLowerCase());
  return names;
}
