import { JsonPayload } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { fakeTransformer } from '@queuebox/testing';
import { expectAnswer, setup, stripe } from '../../test/route-harness.js';

describe('422 transform', () => {
  const withTransform = (onError: 'Fail' | 'Skip' | 'Dead', expression = 'fails') =>
    stripe({ transform: { expression, timeoutMs: 100, maxDepth: 100, onError } });

  it.each(['Fail', 'Dead'] as const)(
    '%s: refuses with the sanitized reason, stores nothing, counts it',
    async (onError) => {
      const t = setup({ stripe: withTransform(onError) });
      const res = await t.post('/inbox/stripe', '{"id":"1"}', { 'X-Correlation-Id': 'c-422' });
      await expectAnswer(
        res,
        422,
        '{"error":"Transform failed: T1003: boom on password=[REDACTED]"}',
      );
      expect(res.headers.get('x-correlation-id')).toBe('c-422');
      expect(t.store.rows).toHaveLength(0);
      expect(t.metrics.rejections.series()).toEqual([
        { labels: { reason: 'transform_failed' }, value: 1 },
      ]);
      expect(JSON.stringify(t.logger.lines)).not.toContain('hunter2');
    },
  );

  it('Skip: stores the original body', async () => {
    const t = setup({ stripe: withTransform('Skip') });
    const res = await t.post('/inbox/stripe', '{"id": "1", "a": true, "n": 12345678901234567890}');
    expect(res.status).toBe(202);
    // The received text itself, not a re-serialised copy: every digit reaches the database.
    expect(t.store.rows[0]?.message.payload.text).toBe(
      '{"id": "1", "a": true, "n": 12345678901234567890}',
    );
    expect(t.metrics.rejections.series()).toEqual([]);
  });

  it('stores the transformed payload; keys come from the original body', async () => {
    const t = setup({ stripe: withTransform('Fail', 'reshape') });
    const res = await t.post('/inbox/stripe', '{"id":"evt_1","type":"t"}');
    const { messageId } = (await res.json()) as { messageId: string };
    expect(t.store.rows[0]?.message).toMatchObject({
      id: messageId,
      idempotencyKey: 'evt_1',
      eventType: 't',
      payload: JsonPayload.fromValue({ wrapped: { id: 'evt_1', type: 't' }, id: messageId }),
    });
  });

  it('runs before the duplicate check, so a repeat whose transform now fails gets 422', async () => {
    let fail = false;
    const flaky = fakeTransformer({
      maybe: (input) => {
        if (fail) throw new Error('now broken');
        return input;
      },
    });
    const t = setup({ stripe: withTransform('Fail', 'maybe') }, { transformer: flaky });
    expect((await t.post('/inbox/stripe', '{"id":"1"}')).status).toBe(202);
    fail = true;
    await expectAnswer(
      await t.post('/inbox/stripe', '{"id":"1"}'),
      422,
      '{"error":"Transform failed: now broken"}',
    );
  });

  it('binds the source-stage variables', async () => {
    const recording = fakeTransformer({ bindings: (_input, bindings) => bindings });
    const t = setup(
      {
        stripe: withTransform('Fail', 'bindings'),
      },
      { transformer: recording },
    );
    const res = await t.post('/inbox/stripe', '{"id":"evt_1","type":"invoice.paid"}', {
      Authorization: 'Bearer x',
      'X-Tenant': 'acme',
    });
    const { messageId } = (await res.json()) as { messageId: string };
    expect(recording.evaluations[0]?.bindings).toEqual({
      messageId,
      topic: 'invoice.paid',
      attempt: 0,
      timestamp: '2026-03-01T12:00:00.000Z',
      source: 'stripe',
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'x-tenant': 'acme' },
      idempotencyKey: 'evt_1',
      eventType: 'invoice.paid',
    });
    const none = await t.post('/inbox/stripe', '{"id":"evt_2"}');
    expect(none.status).toBe(202);
    expect(recording.evaluations[1]?.bindings).toMatchObject({ topic: '', eventType: null });
  });
});
