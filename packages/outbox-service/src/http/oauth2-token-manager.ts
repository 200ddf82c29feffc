/**
 * OAuth2 client-credentials tokens for HTTP destinations (spec §6.1). Tokens are cached per
 * `clientId@tokenUrl` and reused while `now < expiresAt - 30 s`, so a token never expires in
 * flight. A refresh is single-flight per key: when many messages find the token stale at once,
 * one request goes to the token endpoint and all of them wait for it. A 401 from the destination
 * does not invalidate the token by itself (as in the reference); `invalidateToken` exists for
 * callers that want it.
 */
import { Agent, request } from './undici-parts.js';
import { sanitize, systemClock, type Clock, type Secret } from '@queuebox/core';
import { closeWithin, CLOSE_GRACE_MS } from './bounded-close.js';
import { Deadline, describeNetworkError } from './deadline.js';
import { httpErrorText } from './error-text.js';
import { readBodyPrefix } from './response-body.js';

/** Reuse stops this long before the token expires. */
export const TOKEN_REFRESH_MARGIN_MS = 30_000;
/** Lifetime assumed when the response carries no `expires_in`. */
export const DEFAULT_TOKEN_LIFETIME_S = 3600;
/** A token response is a few hundred bytes; anything far larger is not one. */
const MAX_TOKEN_RESPONSE_BYTES = 256 * 1024;
/** Error bodies of the token endpoint are cut like destination error bodies. */
const MAX_ERROR_TEXT_BYTES = 2048;
const DEFAULT_TIMEOUT_MS = 30_000;

export interface OAuth2Client {
  readonly clientId: string;
  readonly clientSecret: Secret;
  readonly tokenUrl: string;
  readonly scope: string | null;
  readonly extraParams: Readonly<Record<string, string>>;
}

export interface AccessToken {
  readonly accessToken: string;
  /** As the endpoint sent it; `Bearer` when absent. */
  readonly tokenType: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

export interface OAuth2TokenManagerOptions {
  readonly clock?: Clock;
  /** Budget of one token request; the HTTP publisher passes the destination's `timeoutMs`. */
  readonly timeoutMs?: number;
}

export interface OAuth2TokenManager {
  /** A cached token, or a fresh one from the token endpoint; throws `OAuth2TokenError`. */
  getToken(client: OAuth2Client, options?: { readonly timeoutMs?: number }): Promise<AccessToken>;
  /** Forgets the cached token of this client, so the next call fetches a new one. */
  invalidateToken(client: Pick<OAuth2Client, 'clientId' | 'tokenUrl'>): void;
  close(): Promise<void>;
}

/** The token endpoint failed or answered something that is not a token. Message is sanitized. */
export class OAuth2TokenError extends Error {
  override readonly name = 'OAuth2TokenError';
}

export function tokenCacheKey(client: Pick<OAuth2Client, 'clientId' | 'tokenUrl'>): string {
  return `${client.clientId}@${client.tokenUrl}`;
}

export function createOAuth2TokenManager(
  options: OAuth2TokenManagerOptions = {},
): OAuth2TokenManager {
  const clock = options.clock ?? systemClock;
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cache = new Map<string, AccessToken>();
  const inFlight = new Map<string, Promise<AccessToken>>();
  // One keep-alive agent for every token endpoint; token traffic is light.
  const agent = new Agent({ pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });

  function fresh(key: string): AccessToken | undefined {
    const token = cache.get(key);
    if (token === undefined) return undefined;
    return clock.now().getTime() < token.expiresAt - TOKEN_REFRESH_MARGIN_MS ? token : undefined;
  }

  return {
    getToken(client, callOptions = {}) {
      const key = tokenCacheKey(client);
      const cached = fresh(key);
      if (cached !== undefined) return Promise.resolve(cached);
      const running = inFlight.get(key);
      if (running !== undefined) return running;
      const timeoutMs = callOptions.timeoutMs ?? defaultTimeoutMs;
      const refresh = requestToken(agent, client, timeoutMs, clock)
        .then((token) => {
          cache.set(key, token);
          return token;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, refresh);
      return refresh;
    },
    invalidateToken(client) {
      cache.delete(tokenCacheKey(client));
    },
    async close() {
      cache.clear();
      await closeWithin(agent, CLOSE_GRACE_MS);
    },
  };
}

async function requestToken(
  agent: Agent,
  client: OAuth2Client,
  timeoutMs: number,
  clock: Clock,
): Promise<AccessToken> {
  const url = new URL(client.tokenUrl);
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret.reveal(),
  });
  if (client.scope !== null && client.scope.trim() !== '') form.set('scope', client.scope);
  for (const [name, value] of Object.entries(client.extraParams)) form.set(name, value);

  const where = sanitize(client.tokenUrl);
  const deadline = new Deadline(timeoutMs);
  try {
    let response;
    try {
      response = await request(agent, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
        signal: deadline.signal,
      });
    } catch (error: unknown) {
      const cause = deadline.timedOut
        ? `timeout after ${timeoutMs}ms`
        : sanitize(describeNetworkError(error));
      throw new OAuth2TokenError(`The token request to ${where} failed: ${cause}`);
    }
    const body = await readBodyPrefix(response.body, MAX_TOKEN_RESPONSE_BYTES);
    if (response.statusCode < 200 || response.statusCode > 299) {
      const text = httpErrorText(response.statusCode, body, MAX_ERROR_TEXT_BYTES);
      throw new OAuth2TokenError(`The token endpoint ${where} answered ${text}`);
    }
    return parseToken(body, where, clock.now().getTime());
  } finally {
    deadline.clear();
  }
}

function parseToken(body: Uint8Array, where: string, now: number): AccessToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw new OAuth2TokenError(`The token endpoint ${where} did not answer JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null) {
    throw new OAuth2TokenError(`The token endpoint ${where} did not answer a JSON object`);
  }
  const fields = parsed as { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
  if (typeof fields.access_token !== 'string' || fields.access_token === '') {
    throw new OAuth2TokenError(`The token response of ${where} has no access_token`);
  }
  const tokenType =
    typeof fields.token_type === 'string' && fields.token_type !== ''
      ? fields.token_type
      : 'Bearer';
  return {
    accessToken: fields.access_token,
    tokenType,
    expiresAt: now + lifetimeSeconds(fields.expires_in) * 1000,
  };
}

/** `expires_in` as a number or numeric string (both occur in the wild); absent → 3600 s. */
function lifetimeSeconds(value: unknown): number {
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0
    ? seconds
    : DEFAULT_TOKEN_LIFETIME_S;
}
