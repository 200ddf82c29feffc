import { Secret } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { UUID, setup, stripe } from '../../test/route-harness.js';

describe('stored headers', () => {
  it('exclude Authorization, Proxy-Authorization, Cookie and the auth header; keep the rest', async () => {
    const t = setup({
      stripe: stripe({ auth: { type: 'api-key', key: new Secret('k'), headerName: 'X-API-Key' } }),
    });
    await t.post('/inbox/stripe', '{"id":"1"}', {
      'X-API-Key': 'k',
      Authorization: 'Bearer other',
      'Proxy-Authorization': 'Basic x',
      Cookie: 'session=1',
      'X-Keep': 'yes',
    });
    expect(t.store.rows[0]?.message.headers).toEqual({
      'content-type': 'text/plain;charset=UTF-8',
      'x-keep': 'yes',
    });
  });

  it('keep the last value of a repeated name and the sender spelling on the Node server', async () => {
    const t = setup({
      stripe: stripe({
        filter: {
          require: [{ header: 'x-env', test: { kind: 'equals', value: 'prod' } }],
          exclude: [],
        },
      }),
    });
    // What @hono/node-server passes as the environment: the raw incoming message.
    const env = {
      incoming: {
        rawHeaders: [
          'Host',
          'q.example',
          'X-Env',
          'dev',
          'X-Tenant',
          'a',
          'x-env',
          'prod',
          'COOKIE',
          'c=1',
          'X-Correlation-Id',
          'raw-corr',
        ],
      },
    };
    const res = await t.post('/inbox/stripe', '{"id":"1"}', {}, env);
    expect(res.status).toBe(202);
    expect(res.headers.get('x-correlation-id')).toBe('raw-corr');
    expect(t.store.rows[0]?.message.headers).toEqual({
      Host: 'q.example',
      'X-Tenant': 'a',
      'x-env': 'prod',
      'X-Correlation-Id': 'raw-corr',
    });
  });
});

describe('correlation id', () => {
  it('is echoed, stored, sanitized and generated when absent or blank', async () => {
    const t = setup({ stripe: stripe() });
    const fromSender = await t.post('/inbox/stripe', '{"id":"1"}', {
      'X-Correlation-Id': 'abc-123',
    });
    expect(fromSender.headers.get('x-correlation-id')).toBe('abc-123');
    expect(t.store.rows[0]?.message.correlationId).toBe('abc-123');

    const long = await t.post('/inbox/stripe', '{"id":"2"}', {
      'x-correlation-id': `a\u007fb${'c'.repeat(200)}`,
    });
    expect(long.headers.get('x-correlation-id')).toBe(`ab${'c'.repeat(126)}`);
    expect(t.store.rows[1]?.message.correlationId).toBe(`ab${'c'.repeat(126)}`);

    const generated = await t.post('/inbox/stripe', '{"id":"3"}');
    const id = generated.headers.get('x-correlation-id');
    expect(id).toMatch(UUID);
    expect(t.store.rows[2]?.message.correlationId).toBe(id);
    expect(id).not.toBe(t.store.rows[2]?.message.id);

    const blank = await t.post('/inbox/stripe', '{"id":"4"}', { 'X-Correlation-Id': '   ' });
    expect(blank.headers.get('x-correlation-id')).toMatch(UUID);
  });

  it('removes control characters a raw header can carry (the Node server passes them through)', async () => {
    const t = setup({ stripe: stripe() });
    const env = { incoming: { rawHeaders: ['X-Correlation-Id', 'x\u0001y\u0085z'] } };
    const res = await t.post('/inbox/stripe', '{"id":"1"}', {}, env);
    expect(res.headers.get('x-correlation-id')).toBe('xyz');
  });
});
