import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  JsonPayload,
  Secret,
  type DestinationAuthConfig,
  type DestinationConfig,
  type Publisher,
} from '@queuebox/core';
import { httpDestination, type HttpSink, outboxMessage, startHttpSink } from '@queuebox/testing';
import type { HttpStatusClass } from './status-class.js';
import { rawValues, send, testPublisher } from '../../test/publisher-harness.js';

let sink: HttpSink;
let publisher: Publisher | undefined;
let statusClasses: HttpStatusClass[];

beforeEach(async () => {
  sink = await startHttpSink();
  statusClasses = [];
});

afterEach(async () => {
  await publisher?.close();
  publisher = undefined;
  await sink.close();
});

function publisherFor(
  destinations: Record<string, DestinationConfig>,
  maxErrorBodyBytes = 2048,
): Publisher {
  publisher = testPublisher(destinations, {
    maxErrorBodyBytes,
    onResponse: (statusClass) => statusClasses.push(statusClass),
  });
  return publisher;
}

describe('HTTP publisher: request', () => {
  it('POSTs the payload JSON to baseUrl joined with path, with every standard header', async () => {
    const target = publisherFor({
      receiver: httpDestination({ baseUrl: `${sink.url}/api/`, path: '/v1//events/' }),
    });
    const message = outboxMessage({ topic: 'orders.created', attempt: 0 });
    const outcome = await send(target, message, {
      payload: JsonPayload.fromValue({ transformed: true }),
    });

    expect(outcome).toEqual({ ok: true });
    expect(sink.requests).toHaveLength(1);
    const request = sink.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/api/v1/events');
    expect(request.body).toBe('{"transformed":true}');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-message-id']).toBe(message.id);
    expect(request.headers['x-topic']).toBe('orders.created');
    expect(request.headers['x-attempt']).toBe('0');
    expect(request.headers).not.toHaveProperty('x-message-key');
  });

  it('sends X-Message-Key only when the row has a key, and the attempt number', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) });
    await send(target, outboxMessage({ key: 'customer-7', attempt: 3 }));
    expect(sink.requests[0]!.headers['x-message-key']).toBe('customer-7');
    expect(sink.requests[0]!.headers['x-attempt']).toBe('3');
  });

  it('merges static < auth < row headers, the later writer winning regardless of case', async () => {
    const target = publisherFor({
      receiver: httpDestination({
        baseUrl: sink.url,
        headers: { 'X-Static': 'static', 'X-Shared': 'static', Authorization: 'static' },
        auth: { type: 'header', headerName: 'X-Api-Key', headerValue: secret('auth-key') },
      }),
    });
    await send(
      target,
      outboxMessage({
        headers: { 'x-shared': 'row', 'X-Api-Key': 'row-key', 'X-Correlation-Id': 'c-1' },
      }),
    );
    const { rawHeaders } = sink.requests[0]!;
    expect(rawValues(rawHeaders, 'x-static')).toEqual(['static']);
    expect(rawValues(rawHeaders, 'x-shared')).toEqual(['row']);
    expect(rawValues(rawHeaders, 'x-api-key')).toEqual(['row-key']);
    expect(rawValues(rawHeaders, 'authorization')).toEqual(['static']);
    expect(rawValues(rawHeaders, 'x-correlation-id')).toEqual(['c-1']);
  });

  it('lets the auth header override a static header of the same name', async () => {
    const target = publisherFor({
      receiver: httpDestination({
        baseUrl: sink.url,
        headers: { authorization: 'static' },
        auth: { type: 'basic', username: 'u', password: secret('p') },
      }),
    });
    await send(target);
    expect(rawValues(sink.requests[0]!.rawHeaders, 'authorization')).toEqual(['Basic dTpw']);
  });

  it('sends a standard header once, with its own value, whatever the row names (it owns it)', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) });
    await send(
      target,
      outboxMessage({ topic: 'orders.created', headers: { 'X-Topic': 'from-row' } }),
    );
    const { rawHeaders, headers } = sink.requests[0]!;
    expect(rawValues(rawHeaders, 'x-topic')).toEqual(['orders.created']);
    expect(headers['x-topic']).toBe('orders.created');
  });

  it('sends the stored text as the body, with its own length, never a relayed Content-Length', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) });
    // A webhook's compact body was relayed with its length; the stored jsonb text is longer.
    const text = '{"id": 12345678901234567890, "amount": 1.50}';
    const outcome = await send(
      target,
      outboxMessage({ payload: JsonPayload.fromText(text), headers: { 'Content-Length': '36' } }),
    );
    expect(outcome).toEqual({ ok: true });
    expect(sink.requests[0]!.body).toBe(text);
    expect(rawValues(sink.requests[0]!.rawHeaders, 'content-length')).toEqual([
      String(Buffer.byteLength(text)),
    ]);
  });

  it('reuses keep-alive connections across messages', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) });
    for (let i = 0; i < 10; i++) expect(await send(target)).toEqual({ ok: true });
    // undici frees a socket a tick after the body ends, so back-to-back sends may open a second.
    expect(sink.connections()).toBeLessThanOrEqual(2);
  });

  it('supports only its own HTTP destinations', async () => {
    const target = publisherFor({
      receiver: httpDestination({ baseUrl: sink.url }),
      other: {
        type: 'nats',
        servers: 'nats://localhost',
        subject: 's',
        subjectFrom: null,
        jetStream: true,
        timeoutMs: 1000,
        username: null,
        password: null,
        token: null,
        headers: {},
        transform: null,
      },
    });
    expect(target.type).toBe('http');
    expect(target.supports('receiver')).toBe(true);
    expect(target.supports('other')).toBe(false);
    expect(await send(target, outboxMessage(), { destination: 'other' })).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: "No publisher supports destination 'other'",
      }) as unknown,
    });
  });
});

describe('HTTP publisher: outcomes', () => {
  it('treats any 2xx, 202 included, as success and counts the status class', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) });
    for (const status of [200, 202, 204]) {
      sink.handle((_request, response) => {
        response.writeHead(status);
        response.end();
      });
      expect(await send(target)).toEqual({ ok: true });
    }
    expect(statusClasses).toEqual(['2xx', '2xx', '2xx']);
  });

  it('never follows a redirect: a 3xx fails the attempt', async () => {
    const target = publisherFor({
      receiver: httpDestination({ baseUrl: sink.url, path: '/events' }),
    });
    sink.handle((request, response) => {
      if (request.url === '/events') {
        response.writeHead(302, { location: '/elsewhere' });
        response.end('moved');
      } else {
        response.writeHead(200);
        response.end();
      }
    });
    const outcome = await send(target);
    expect(outcome).toMatchObject({
      ok: false,
      error: expect.objectContaining({ message: 'HTTP 302: Found - moved' }) as unknown,
    });
    expect(sink.requests.map((r) => r.url)).toEqual(['/events']);
    expect(statusClasses).toEqual(['3xx']);
  });

  it('reports 4xx and 5xx with the reason phrase and the body, and counts their classes', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) });
    sink.handle((_request, response) => {
      response.writeHead(422);
      response.end('{"error":"invalid order"}');
    });
    expect(await send(target)).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: 'HTTP 422: Unprocessable Entity - {"error":"invalid order"}',
      }) as unknown,
    });
    sink.handle((_request, response) => {
      response.writeHead(503);
      response.end();
    });
    expect(await send(target)).toEqual({
      ok: false,
      error: expect.objectContaining({ message: 'HTTP 503: Service Unavailable' }) as unknown,
    });
    expect(statusClasses).toEqual(['4xx', '5xx']);
  });

  it('reads Retry-After of a 429 or 503 (seconds or an HTTP date), and of no other status', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) });
    const answer = (status: number, retryAfter: string) =>
      sink.handle((_request, response) => {
        response.writeHead(status, { 'retry-after': retryAfter });
        response.end();
      });
    answer(429, '7');
    expect(await send(target)).toEqual({
      ok: false,
      error: expect.objectContaining({ message: 'HTTP 429: Too Many Requests' }) as unknown,
      retryAfterMs: 7_000,
    });
    answer(503, new Date(Date.now() + 60_000).toUTCString());
    const dated = await send(target);
    expect(dated.ok).toBe(false);
    const waitMs = dated.ok ? 0 : (dated.retryAfterMs ?? 0);
    // An HTTP date has whole seconds: up to one second less than asked, never more.
    expect(waitMs).toBeGreaterThan(58_000);
    expect(waitMs).toBeLessThanOrEqual(60_000);
    answer(500, '7');
    expect(await send(target)).toEqual({
      ok: false,
      error: expect.objectContaining({ message: 'HTTP 500: Internal Server Error' }) as unknown,
    });
    answer(429, 'soon');
    expect(await send(target)).toEqual({
      ok: false,
      error: expect.objectContaining({ message: 'HTTP 429: Too Many Requests' }) as unknown,
    });
  });

  it('redacts credentials a receiver echoes in its error body', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) });
    sink.handle((_request, response) => {
      response.writeHead(401);
      response.end('login failed for user=bob password=secret; Authorization: Bearer abc.def.123');
    });
    const outcome = await send(target);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.message).toBe(
      'HTTP 401: Unauthorized - login failed for user=bob password=[REDACTED]; Authorization=[REDACTED]',
    );
    expect(outcome.error.message).not.toContain('secret');
  });

  it('truncates the body to maxErrorBodyBytes before sanitizing, and the whole text too', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) }, 40);
    sink.handle((_request, response) => {
      response.writeHead(500);
      // The secret starts beyond the cut: it must not come back half-redacted.
      response.end(`${'é'.repeat(30)} password=secret`);
    });
    const outcome = await send(target);
    if (outcome.ok) throw new Error('expected failure');
    expect(Buffer.byteLength(outcome.error.message, 'utf8')).toBeLessThanOrEqual(40);
    // 34 bytes of head leave 6 bytes: three two-byte characters.
    expect(outcome.error.message).toBe(`HTTP 500: Internal Server Error - ${'é'.repeat(3)}`);
  });

  it('drains error bodies so the connection is reused', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) }, 16);
    sink.handle((_request, response) => {
      response.writeHead(500);
      response.end('short');
    });
    for (let i = 0; i < 10; i++) expect((await send(target)).ok).toBe(false);
    expect(sink.connections()).toBeLessThanOrEqual(2);
  });

  it('closes instead of downloading an error body far beyond the bound', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) }, 16);
    sink.handle((_request, response) => {
      response.writeHead(500);
      response.end('x'.repeat(1024 * 1024));
    });
    const outcome = await send(target);
    expect(outcome).toMatchObject({
      ok: false,
      error: expect.objectContaining({ message: 'HTTP 500: Intern' }) as unknown,
    });
    // The next message still goes out (on a new socket).
    sink.handle((_request, response) => {
      response.end();
    });
    expect(await send(target)).toEqual({ ok: true });
  });

  it('fails with the timeout text when the receiver does not answer in timeoutMs', async () => {
    const target = publisherFor({
      receiver: httpDestination({ baseUrl: sink.url, timeoutMs: 200 }),
    });
    sink.handle(() => undefined); // never answers
    const started = performance.now();
    expect(await send(target)).toEqual({
      ok: false,
      error: expect.objectContaining({ message: 'Request timeout after 200ms' }) as unknown,
    });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('fails with "Publish failed" when the connection is refused', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const target = publisherFor({
      receiver: httpDestination({ baseUrl: `http://127.0.0.1:${port}` }),
    });
    expect(await send(target)).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: `Publish failed: connect ECONNREFUSED 127.0.0.1:${port}`,
      }) as unknown,
    });
    expect(statusClasses).toEqual([]);
  });

  it('stops when the caller aborts (claim lost)', async () => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url }) });
    sink.handle(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await send(target, outboxMessage(), { signal: controller.signal })).toMatchObject({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish cancelled: the claim on the message was lost',
      }) as unknown,
    });
  });
});

describe('HTTP publisher: basic and header auth', () => {
  it.each<[string, DestinationAuthConfig, string, string]>([
    [
      'sends Basic base64(username:password) in UTF-8',
      { type: 'basic', username: 'jürgen', password: secret('pässwort:1') },
      'authorization',
      `Basic ${Buffer.from('jürgen:pässwort:1', 'utf8').toString('base64')}`,
    ],
    [
      'sends a static header auth under its configured name',
      { type: 'header', headerName: 'X-Api-Key', headerValue: secret('k-123') },
      'x-api-key',
      'k-123',
    ],
  ])('%s', async (_behaviour, auth, header, expected) => {
    const target = publisherFor({ receiver: httpDestination({ baseUrl: sink.url, auth }) });
    await send(target);
    expect(sink.requests[0]!.headers[header]).toBe(expected);
  });
});

function secret(value: string): Secret {
  return new Secret(value);
}
