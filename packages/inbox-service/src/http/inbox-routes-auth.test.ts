import { createHmac } from 'node:crypto';
import { Secret } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { hmacAuth, httpSource } from '@queuebox/testing';
import { expectAnswer, NOW, setup, stripe, chunked } from '../../test/route-harness.js';

describe('401', () => {
  const sign = (secret: string, body: string, algorithm = 'sha256') =>
    createHmac(algorithm, secret).update(body).digest('hex');

  it('names each bearer check', async () => {
    const t = setup({ stripe: stripe({ auth: { type: 'bearer', token: new Secret('tok') } }) });
    const cases: [Record<string, string>, string][] = [
      [{}, 'Missing Authorization header'],
      [{ Authorization: 'tok' }, 'Invalid Authorization scheme'],
      [{ Authorization: 'Basic dG9r' }, 'Invalid Authorization scheme'],
      [{ Authorization: 'Bearer nope' }, 'Invalid bearer token'],
    ];
    for (const [headers, reason] of cases) {
      const res = await t.post('/inbox/stripe', '{"id":"1"}', {
        ...headers,
        'X-Correlation-Id': 'c',
      });
      await expectAnswer(res, 401, JSON.stringify({ error: reason }));
      expect(res.headers.get('x-correlation-id')).toBeNull();
    }
    expect(
      (await t.post('/inbox/stripe', '{"id":"1"}', { Authorization: 'bearer tok' })).status,
    ).toBe(202);
    expect(t.store.rows).toHaveLength(1);
  });

  it('names each api-key check, with the configured header name', async () => {
    const t = setup({
      stripe: stripe({
        auth: { type: 'api-key', key: new Secret('k1'), headerName: 'X-Api-Token' },
      }),
    });
    await expectAnswer(
      await t.post('/inbox/stripe', '{"id":"1"}'),
      401,
      '{"error":"Missing X-Api-Token header"}',
    );
    await expectAnswer(
      await t.post('/inbox/stripe', '{"id":"1"}', { 'x-api-token': 'k2' }),
      401,
      '{"error":"Invalid API key"}',
    );
    expect((await t.post('/inbox/stripe', '{"id":"1"}', { 'X-API-TOKEN': 'k1' })).status).toBe(202);
  });

  it('verifies a GitHub X-Hub-Signature-256 over the raw bytes read', async () => {
    const secret = "It's a Secret to Everybody";
    const t = setup({
      gh: httpSource({
        path: '/github',
        idempotencyKeyHeader: 'X-GitHub-Delivery',
        auth: hmacAuth({ secret: new Secret(secret), headerName: 'X-Hub-Signature-256' }),
      }),
    });
    // Whitespace and key order matter: the signature is over the bytes, not the parsed JSON.
    const body = '{ "zen": "Keep it logically awesome.",\n  "hook_id": 1 }';
    const ok = await t.post('/inbox/github', body, {
      'X-Hub-Signature-256': `sha256=${sign(secret, body)}`,
      'X-GitHub-Delivery': 'd1',
    });
    expect(ok.status).toBe(202);
    const reordered = '{"zen":"Keep it logically awesome.","hook_id":1}';
    const tampered = await t.post('/inbox/github', reordered, {
      'X-Hub-Signature-256': `sha256=${sign(secret, body)}`,
      'X-GitHub-Delivery': 'd2',
    });
    await expectAnswer(tampered, 401, '{"error":"Invalid signature"}');
    await expectAnswer(
      await t.post('/inbox/github', body, { 'X-GitHub-Delivery': 'd3' }),
      401,
      '{"error":"Missing X-Hub-Signature-256 header"}',
    );
    // Signed chunks arrive as one body.
    const streamed = await t.post('/inbox/github', chunked([body.slice(0, 10), body.slice(10)]), {
      'X-Hub-Signature-256': `sha256=${sign(secret, body)}`,
      'X-GitHub-Delivery': 'd4',
    });
    expect(streamed.status).toBe(202);
  });

  it('names each timestamped hmac check (TIMESTAMP_DOT_BODY, SHA-512)', async () => {
    const t = setup({
      s: stripe({
        auth: {
          type: 'hmac',
          secret: new Secret('whsec'),
          headerName: 'X-Signature',
          algorithm: 'HmacSHA512',
          signaturePrefix: '',
          timestampHeader: 'X-Timestamp',
          timestampToleranceMs: 60_000,
          signaturePayloadFormat: 'TIMESTAMP_DOT_BODY',
        },
      }),
    });
    const body = '{"id":"evt_ts"}';
    const ts = String(NOW - 1000);
    const signature = sign('whsec', `${ts}.${body}`, 'sha512');
    const cases: [Record<string, string>, string][] = [
      [{ 'X-Timestamp': ts }, 'Missing X-Signature header'],
      [{ 'X-Signature': signature }, 'Missing timestamp header'],
      [
        { 'X-Signature': signature, 'X-Timestamp': '2026-03-01T12:00:00Z' },
        'Invalid timestamp format',
      ],
      [
        { 'X-Signature': signature, 'X-Timestamp': String(NOW - 61_000) },
        'Request timestamp expired',
      ],
      [{ 'X-Signature': sign('whsec', body, 'sha512'), 'X-Timestamp': ts }, 'Invalid signature'],
    ];
    for (const [headers, reason] of cases) {
      await expectAnswer(
        await t.post('/inbox/stripe', body, headers),
        401,
        JSON.stringify({ error: reason }),
      );
    }
    expect(
      (await t.post('/inbox/stripe', body, { 'X-Signature': signature, 'X-Timestamp': ts })).status,
    ).toBe(202);
    // The timestamp header is no credential and stays; the signature header is never stored.
    expect(t.store.rows[0]?.message.headers).toEqual({
      'content-type': 'text/plain;charset=UTF-8',
      'x-timestamp': ts,
    });
  });

  it('authenticates before the body is parsed', async () => {
    const t = setup({ stripe: stripe({ auth: { type: 'bearer', token: new Secret('tok') } }) });
    await expectAnswer(
      await t.post('/inbox/stripe', 'not json'),
      401,
      '{"error":"Missing Authorization header"}',
    );
  });
});
