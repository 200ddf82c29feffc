/**
 * The auth header of an HTTP destination (spec §6.1): `basic` and `header` are fixed and built
 * once; `oauth2` asks the token manager on every publish (a cache hit costs no I/O).
 */
import type { DestinationAuthConfig } from '@queuebox/core';
import type { OAuth2TokenManager } from './oauth2-token-manager.js';

export type AuthHeader = readonly [name: string, value: string];

/** Returns the header directly when it is fixed, so the common case does not await. */
export type AuthHeaderSource = () => AuthHeader | null | Promise<AuthHeader>;

export function authHeaderSource(
  auth: DestinationAuthConfig | null,
  tokens: OAuth2TokenManager,
  timeoutMs: number,
): AuthHeaderSource {
  if (auth === null) return () => null;
  switch (auth.type) {
    case 'basic': {
      const credentials = Buffer.from(`${auth.username}:${auth.password.reveal()}`, 'utf8');
      const header: AuthHeader = ['Authorization', `Basic ${credentials.toString('base64')}`];
      return () => header;
    }
    case 'header': {
      const header: AuthHeader = [auth.headerName, auth.headerValue.reveal()];
      return () => header;
    }
    case 'oauth2':
      // Always `Bearer`, whatever case the endpoint wrote its token_type in (spec §6.1 table).
      return async () => {
        const token = await tokens.getToken(auth, { timeoutMs });
        return ['Authorization', `Bearer ${token.accessToken}`];
      };
  }
}
