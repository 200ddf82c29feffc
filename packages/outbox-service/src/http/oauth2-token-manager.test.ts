import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Secret, type Clock, type OutboxMessage } from '@queuebox/core';
import {
  httpDestination,
  type HttpSink,
  outboxMessage,
  type SinkRequest,
  startHttpSink,
} from '@queuebox/testing';
import { createHttpPublisher } from './http-publisher.js';
import {
  createOAuth2TokenManager,
  OAuth2TokenError,
  tokenCacheKey,
  type OAuth2Client,
  type OAuth2TokenManager,
} from './oauth2-token-manager.js';

/** A clock the test moves by hand. */
class ManualClock implements Clock {
  constructor(public millis = Date.parse('2025-01-01T00:00:00Z')) {}
  now(): Date {
    return new Date(this.millis);
  }
  advance(ms: number): void {
    this.millis += ms;
  }
}

let sink: HttpSink;
let clock: ManualClock;
let tokens: OAuth2TokenManager;
let tokenRequests: SinkRequest[];
let tokenResponse: { status: number; body: unknown; delayMs?: number };
let issued: number;

beforeEach(async () => {
  clock = new ManualClock();
  tokenRequests = [];
  issued = 0;
  tokenResponse = { status: 200, body: undefined };
  sink = await startHttpSink(async (request, response) => {
    if (request.url === '/oauth/token') {
      tokenRequests.push(request);
      if (tokenResponse.delayMs !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, tokenResponse.delayMs));
      }
      issued++;
      const body = tokenResponse.body ?? {
        access_token: `token-${issued}`,
        token_type: 'Bearer',
        expires_in: 3600,
      };
      response.writeHead(tokenResponse.status, { 'content-type': 'application/json' });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
      return;
    }
    response.writeHead(200);
    response.end();
  });
  tokens = createOAuth2TokenManager({ clock });
});

afterEach(async () => {
  await tokens.close();
  await sink.close();
});

function client(overrides: Partial<OAuth2Client> = {}): OAuth2Client {
  return {
    clientId: 'queuebox',
    clientSecret: new Secret('s3cr3t value'),
    tokenUrl: `${sink.url}/oauth/token`,
    scope: null,
    extraParams: {},
    ...overrides,
  };
}

function form(request: SinkRequest): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(request.body));
}

describe('OAuth2 token manager', () => {
  it('fetches a token with the client-credentials form', async () => {
    const token = await tokens.getToken(
      client({ scope: 'orders:write', extraParams: { audience: 'https://api', resource: 'r1' } }),
    );
    expect(token).toEqual({
      accessToken: 'token-1',
      tokenType: 'Bearer',
      expiresAt: clock.millis + 3600_000,
    });
    expect(tokenRequests).toHaveLength(1);
    const request = tokenRequests[0]!;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(form(request)).toEqual({
      grant_type: 'client_credentials',
      client_id: 'queuebox',
      client_secret: 's3cr3t value',
      scope: 'orders:write',
      audience: 'https://api',
      resource: 'r1',
    });
  });

  it('omits scope when none is configured', async () => {
    await tokens.getToken(client());
    expect(form(tokenRequests[0]!)).not.toHaveProperty('scope');
  });

  it('defaults token_type to Bearer and expires_in to 3600 s', async () => {
    tokenResponse = { status: 200, body: { access_token: 'plain' } };
    expect(await tokens.getToken(client())).toEqual({
      accessToken: 'plain',
      tokenType: 'Bearer',
      expiresAt: clock.millis + 3600_000,
    });
  });

  it('reuses the cached token until 30 s before it expires, then refreshes', async () => {
    tokenResponse = { status: 200, body: undefined };
    expect((await tokens.getToken(client())).accessToken).toBe('token-1');
    clock.advance(3600_000 - 30_000 - 1);
    expect((await tokens.getToken(client())).accessToken).toBe('token-1');
    expect(tokenRequests).toHaveLength(1);
    clock.advance(1); // now == expiresAt - 30 s: no longer reusable
    expect((await tokens.getToken(client())).accessToken).toBe('token-2');
    expect(tokenRequests).toHaveLength(2);
  });

  it('refreshes once for many concurrent callers (single flight)', async () => {
    tokenResponse = { status: 200, body: undefined, delayMs: 50 };
    const results = await Promise.all(Array.from({ length: 20 }, () => tokens.getToken(client())));
    expect(new Set(results.map((t) => t.accessToken))).toEqual(new Set(['token-1']));
    expect(tokenRequests).toHaveLength(1);
  });

  it('keys the cache by clientId@tokenUrl', async () => {
    await tokens.getToken(client({ clientId: 'a' }));
    await tokens.getToken(client({ clientId: 'b' }));
    await tokens.getToken(client({ clientId: 'a', scope: 'other' }));
    expect(tokenRequests).toHaveLength(2);
    expect(tokenCacheKey(client({ clientId: 'a' }))).toBe(`a@${sink.url}/oauth/token`);
  });

  it('fetches a new token after invalidateToken', async () => {
    await tokens.getToken(client());
    tokens.invalidateToken(client());
    expect((await tokens.getToken(client())).accessToken).toBe('token-2');
  });

  it('fails with a sanitized error when the endpoint refuses', async () => {
    tokenResponse = { status: 401, body: 'invalid_client client_secret=s3cr3t' };
    const error = await tokens.getToken(client()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuth2TokenError);
    expect((error as Error).message).toBe(
      `The token endpoint ${sink.url}/oauth/token answered HTTP 401: Unauthorized - invalid_client client_secret=[REDACTED]`,
    );
    // A failure is not cached: the next call tries again.
    tokenResponse = { status: 200, body: undefined };
    expect((await tokens.getToken(client())).accessToken).toBe('token-2');
  });

  it('fails when the response has no access_token', async () => {
    tokenResponse = { status: 200, body: { token_type: 'Bearer' } };
    await expect(tokens.getToken(client())).rejects.toThrow(
      `The token response of ${sink.url}/oauth/token has no access_token`,
    );
  });

  it('fails with a timeout when the endpoint does not answer', async () => {
    tokenResponse = { status: 200, body: undefined, delayMs: 1000 };
    await expect(tokens.getToken(client(), { timeoutMs: 100 })).rejects.toThrow(
      `The token request to ${sink.url}/oauth/token failed: timeout after 100ms`,
    );
  });
});

describe('HTTP publisher with oauth2 auth', () => {
  function publisher() {
    return createHttpPublisher({
      config: {
        destinations: {
          receiver: httpDestination({
            baseUrl: sink.url,
            path: '/events',
            auth: {
              type: 'oauth2',
              clientId: 'queuebox',
              clientSecret: new Secret('s3cr3t'),
              tokenUrl: `${sink.url}/oauth/token`,
              scope: null,
              extraParams: {},
            },
          }),
        },
        http: { maxErrorBodyBytes: 2048, blockPrivateAddresses: false },
        outbox: { concurrency: 8 },
      },
      tokenManager: tokens,
    });
  }

  const send = (target: ReturnType<typeof publisher>, message: OutboxMessage = outboxMessage()) =>
    target.publish({
      message,
      destination: 'receiver',
      payload: message.payload,
      routingKey: null,
      address: null,
      signal: new AbortController().signal,
    });

  const events = () => sink.requests.filter((r) => r.url === '/events');

  it('sends Authorization: Bearer <token> and reuses the token across messages', async () => {
    const target = publisher();
    try {
      expect(await send(target)).toEqual({ ok: true });
      expect(await send(target)).toEqual({ ok: true });
      expect(events().map((r) => r.headers.authorization)).toEqual([
        'Bearer token-1',
        'Bearer token-1',
      ]);
      expect(tokenRequests).toHaveLength(1);
    } finally {
      await target.close();
    }
  });

  it('fetches one token for many concurrent messages', async () => {
    tokenResponse = { status: 200, body: undefined, delayMs: 50 };
    const target = publisher();
    try {
      const outcomes = await Promise.all(Array.from({ length: 16 }, () => send(target)));
      expect(outcomes.every((o) => o.ok)).toBe(true);
      expect(tokenRequests).toHaveLength(1);
      expect(new Set(events().map((r) => r.headers.authorization))).toEqual(
        new Set(['Bearer token-1']),
      );
    } finally {
      await target.close();
    }
  });

  it('refreshes the token shortly before it expires', async () => {
    const target = publisher();
    try {
      await send(target);
      clock.advance(3600_000 - 29_000);
      await send(target);
      expect(events().map((r) => r.headers.authorization)).toEqual([
        'Bearer token-1',
        'Bearer token-2',
      ]);
    } finally {
      await target.close();
    }
  });

  it('fails the publish, without sending, when no token can be had', async () => {
    tokenResponse = { status: 500, body: 'down' };
    const target = publisher();
    try {
      expect(await send(target)).toEqual({
        ok: false,
        error: expect.objectContaining({
          message: `Publish failed: The token endpoint ${sink.url}/oauth/token answered HTTP 500: Internal Server Error - down`,
        }) as unknown,
      });
      expect(events()).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  it('lets a row Authorization header override the token', async () => {
    const target = publisher();
    try {
      await send(target, outboxMessage({ headers: { authorization: 'Bearer from-row' } }));
      expect(events()[0]!.headers.authorization).toBe('Bearer from-row');
    } finally {
      await target.close();
    }
  });
});
