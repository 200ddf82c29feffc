import { afterEach, beforeEach, expect, it } from 'vitest';
import { startHttpSink, type HttpSink } from '@queuebox/testing';
import { DestinationPool } from './destination-pool.js';
import { exchange, type ExchangeRequest } from './http-exchange.js';

/**
 * The safety net under publish-headers.ts: a request undici refuses to build fails its one
 * exchange and costs no connection, whatever undici refuses it for. The headers here go to
 * undici unfiltered, as a future undici check the publisher does not know would.
 */
let sink: HttpSink;
let pool: DestinationPool;

beforeEach(async () => {
  sink = await startHttpSink();
  pool = new DestinationPool(
    sink.url,
    { connections: 2, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 },
    2000,
  );
});

afterEach(async () => {
  await pool.close(1000);
  await sink.close();
});

function post(headers: string[]): ExchangeRequest {
  return { path: '/', headers, body: '{}', timeoutMs: 2000, signal: undefined, maxErrorBytes: 256 };
}

it('fails each refused request alone and keeps every connection for the next ones', async () => {
  const refusals = [
    ['Transfer-Encoding', 'chunked'],
    ['Expect', '100-continue'],
    ['Upgrade', 'websocket'],
    ['Keep-Alive', 'timeout=5'],
    ['X-Bad', '订单'],
    ['Bad Name', 'x'],
  ];
  // Twice the pool's two connections, sequentially and then all at once.
  for (const headers of [...refusals, ...refusals]) {
    expect(await exchange(pool, post(headers))).toMatchObject({
      kind: 'error',
      text: expect.stringMatching(/^Publish failed: (InvalidArgumentError|NotSupportedError): /),
    });
  }
  const concurrent = await Promise.all(refusals.map((headers) => exchange(pool, post(headers))));
  expect(concurrent.every((outcome) => outcome.kind === 'error')).toBe(true);

  const ordinary = await Promise.all(
    Array.from({ length: 8 }, () => exchange(pool, post(['X-Ok', '1']))),
  );
  expect(
    ordinary.map((outcome) => (outcome.kind === 'response' ? outcome.status : outcome.text)),
  ).toEqual(Array.from({ length: 8 }, () => 200));
  expect(sink.requests).toHaveLength(8);
});

it('replaces the pool once for refusals by the same pool, and closes the retired one', async () => {
  const first = pool.dispatcher;
  await Promise.all([
    exchange(pool, post(['Expect', '100-continue'])),
    exchange(pool, post(['Expect', '100-continue'])),
  ]);
  const second = pool.dispatcher;
  expect(second).not.toBe(first);
  // A late refusal reported by the retired pool leaves the current one alone.
  pool.replace(first);
  expect(pool.dispatcher).toBe(second);
  await pool.close(1000);
  expect(first.closed || first.destroyed).toBe(true);
  expect(second.closed || second.destroyed).toBe(true);
});
