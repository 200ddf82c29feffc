import { Secret } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { httpSource } from '@queuebox/testing';
import { expectAnswer, NOW, chunked, setup, stripe } from '../../test/route-harness.js';

describe('413', () => {
  it('refuses a declared Content-Length over the cap before reading', async () => {
    const t = setup({ stripe: stripe({ auth: { type: 'bearer', token: new Secret('tok') } }) });
    const res = await t.post('/inbox/stripe', '{"id":"1"}', { 'Content-Length': '1025' });
    await expectAnswer(res, 413, '{"error":"Request body exceeds 1024 bytes"}');
    expect(res.headers.get('x-correlation-id')).toBeNull();
    expect(t.store.rows).toHaveLength(0);
  });

  it('counts a chunked body without a length and stops at the cap, before authentication', async () => {
    const t = setup({ stripe: stripe({ auth: { type: 'bearer', token: new Secret('tok') } }) });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(100).fill(0x20));
      },
    });
    const res = await t.post('/inbox/stripe', endless);
    await expectAnswer(res, 413, '{"error":"Request body exceeds 1024 bytes"}');
    // It stopped reading soon after the cap, not at the end of the (endless) body.
    expect(pulled).toBeLessThan(20);
  });

  it('accepts a body of exactly the cap', async () => {
    const t = setup({ stripe: stripe() });
    const prefix = '{"id":"1","pad":"';
    const body = `${prefix}${'x'.repeat(1024 - prefix.length - 2)}"}`;
    expect(body.length).toBe(1024);
    expect(
      (await t.post('/inbox/stripe', chunked([body.slice(0, 500), body.slice(500)]))).status,
    ).toBe(202);
    await expectAnswer(
      await t.post('/inbox/stripe', chunked([body, ' '])),
      413,
      '{"error":"Request body exceeds 1024 bytes"}',
    );
  });
});

describe('429 rate limit', () => {
  it('answers 429 with Retry-After and an empty body once the bucket is empty, per source', async () => {
    const t = setup({
      stripe: stripe({ rateLimit: { requestsPerMinute: 2 } }),
      other: httpSource({ path: '/other', idempotencyKeyPath: ['$.id'] }),
    });
    expect((await t.post('/inbox/stripe', '{"id":"1"}')).status).toBe(202);
    t.clock.ms += 20_500;
    expect((await t.post('/inbox/stripe', '{"id":"2"}')).status).toBe(202);
    const limited = await t.post('/inbox/stripe', '{"id":"3"}', { 'X-Correlation-Id': 'c' });
    expect(limited.status).toBe(429);
    expect(await limited.text()).toBe('');
    expect(limited.headers.get('retry-after')).toBe('40');
    expect(limited.headers.get('x-correlation-id')).toBeNull();
    // Another source has its own bucket (none here).
    expect((await t.post('/inbox/other', '{"id":"3"}')).status).toBe(202);
    t.clock.ms = NOW + 60_000;
    expect((await t.post('/inbox/stripe', '{"id":"3"}')).status).toBe(202);
    expect((await t.post('/inbox/stripe', '{"id":"4"}')).status).toBe(202);
    expect((await t.post('/inbox/stripe', '{"id":"5"}')).status).toBe(429);
  });

  it('limits before reading the body, so an oversized body still costs a token and gets 429', async () => {
    const t = setup({ stripe: stripe({ rateLimit: { requestsPerMinute: 1 } }) });
    await expectAnswer(
      await t.post('/inbox/stripe', chunked(['x'.repeat(2000)])),
      413,
      '{"error":"Request body exceeds 1024 bytes"}',
    );
    expect((await t.post('/inbox/stripe', chunked(['x'.repeat(2000)]))).status).toBe(429);
  });
});
