import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { DeliveryFallbacks, SourceDelivery } from '@queuebox/core';
import { createJsonataTransformer } from '@queuebox/outbox-service';
import {
  createMemoryMetrics,
  inMemoryInboxStore,
  rabbitSource,
  recordingLogger,
} from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { createBrokerIngest } from './broker-ingest.js';

function setup(config = rabbitSource(), maxBodyBytes?: number) {
  const store = inMemoryInboxStore();
  const logger = recordingLogger();
  const metrics = createMemoryMetrics().inbox;
  let n = 0;
  const handler = createBrokerIngest('orders', config, {
    store,
    transformer: createJsonataTransformer(),
    logger,
    metrics,
    clock: { now: () => new Date('2026-01-01T00:00:00Z') },
    newId: () => `id-${++n}`,
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  });
  // The series a handle counted, as [labels, value] in first-use order.
  const metric = (name: 'messages' | 'rejections' | 'filtered') =>
    metrics[name].series().map((series) => [series.labels, series.value]);
  return { store, logger, handler, metric };
}

const delivery = (
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  fallbacks: DeliveryFallbacks = {},
): SourceDelivery => ({
  body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
  headers,
  fallbacks,
});

const digest = (bytes: Uint8Array | string) =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('broker ingest', () => {
  it('stores a message once and acks it, then acks its duplicate', async () => {
    const { store, handler, metric } = setup();
    const text = '{"id": 12345678901234567890, "amount": 1.50}';
    expect(await handler.handle(delivery(text, { 'X-Tenant': 't1' }))).toEqual({
      settle: 'ack',
      outcome: 'stored',
    });
    expect(await handler.handle(delivery(text))).toEqual({ settle: 'ack', outcome: 'duplicate' });
    expect(store.rows).toHaveLength(1);
    const [row] = store.rows;
    expect(row!.message).toMatchObject({
      source: 'orders',
      idempotencyKey: '12345678901234567890',
      headers: { 'X-Tenant': 't1' },
      consumption: 'push',
    });
    // The received text, digits as sent.
    expect(row!.message.payload.text).toBe(text);
    expect(row!.options).toEqual({ initialDelayMs: 0 });
    expect(metric('messages')).toEqual([
      [{ status: 'new' }, 1],
      [{ status: 'duplicate' }, 1],
    ]);
  });

  it('reads the key header first, then expression, path, the broker id and at last the digest', async () => {
    const { store, handler } = setup(
      rabbitSource({ idempotencyKeyExpression: 'ref', idempotencyKeyPath: ['$.id'] }),
    );
    await handler.handle(
      delivery('{"id": "p", "ref": "e"}', { 'X-Idempotency-Key': ' h ' }, { idempotencyKey: 'm' }),
    );
    await handler.handle(delivery('{"id": "p", "ref": "e2"}', {}, { idempotencyKey: 'm' }));
    await handler.handle(delivery('{"id": "p3"}', {}, { idempotencyKey: 'm' }));
    await handler.handle(delivery('{"other": 1}', {}, { idempotencyKey: 'm4' }));
    await handler.handle(delivery('{"other": 2}', {}, { idempotencyKey: '  ' }));
    expect(store.rows.map((r) => r.message.idempotencyKey)).toEqual([
      'h',
      'e2',
      'p3',
      'm4',
      digest('{"other": 2}'),
    ]);
  });

  it('reads the same chains without an expression: header, paths, the broker id, the digest', async () => {
    const { store, handler } = setup(
      rabbitSource({
        idempotencyKeyPath: ['$.id', '$.alt'],
        aggregateIdPath: ['$.order'],
        eventTypePath: ['$.kind'],
      }),
    );
    await handler.handle(
      delivery('{"id": "p", "order": 7, "kind": "paid"}', { 'x-idempotency-key': 'h' }),
    );
    await handler.handle(
      delivery('{"alt": "a2"}', { 'X-Aggregate-Id': 'agg', 'x-event-type': 'ev' }),
    );
    await handler.handle(delivery('{"other": 3}', {}, { idempotencyKey: 'm3', aggregateId: 'k3' }));
    await handler.handle(delivery('{"other": 4}'));
    expect(
      store.rows.map(({ message: m }) => [m.idempotencyKey, m.aggregateId, m.eventType]),
    ).toEqual([
      ['h', '7', 'paid'],
      ['a2', 'agg', 'ev'],
      ['m3', 'k3', null],
      [digest('{"other": 4}'), null, null],
    ]);
  });

  it('reads the aggregate id and event type from expression, path, then header; the correlation id from the header, then the property', async () => {
    const { store, handler } = setup(
      rabbitSource({ aggregateIdPath: ['$.order'], eventTypeExpression: 'kind' }),
    );
    await handler.handle(
      delivery(
        '{"id": 1, "order": 7, "kind": "paid"}',
        { 'x-aggregate-id': 'h', 'x-event-type': 'h', 'X-Correlation-Id': 'c-header' },
        { correlationId: 'c-property' },
      ),
    );
    await handler.handle(
      delivery(
        '{"id": 2}',
        { 'X-Aggregate-Id': 'agg', 'x-event-type': 'ev' },
        { correlationId: 'c\u0001p' },
      ),
    );
    await handler.handle(delivery('{"id": 3}'));
    const [first, second, third] = store.rows.map((r) => r.message);
    expect(first).toMatchObject({ aggregateId: '7', eventType: 'paid', correlationId: 'c-header' });
    expect(second).toMatchObject({ aggregateId: 'agg', eventType: 'ev', correlationId: 'cp' });
    expect(third).toMatchObject({ aggregateId: null, eventType: null, correlationId: 'id-3' });
  });

  it('takes the publish time from header, path, then the broker time, only when the source reads one', async () => {
    const brokerTime = new Date('2025-06-01T00:00:00Z');
    const plain = setup();
    await plain.handler.handle(delivery('{"id": 1}', {}, { publishTime: brokerTime }));
    expect(plain.store.rows[0]!.message.publishTime).toBeNull();

    const { store, handler, logger } = setup(
      rabbitSource({
        scheduledAtHeader: 'x-at',
        scheduledAtPath: ['$.at'],
        initialDelayMs: 60_000,
      }),
    );
    await handler.handle(
      delivery(
        '{"id": 1, "at": 1700000001}',
        { 'x-at': '1700000000' },
        { publishTime: brokerTime },
      ),
    );
    await handler.handle(
      delivery('{"id": 2, "at": 1700000001}', { 'x-at': 'soon' }, { publishTime: brokerTime }),
    );
    await handler.handle(delivery('{"id": 3}', {}, { publishTime: brokerTime }));
    await handler.handle(delivery('{"id": 4}'));
    expect(store.rows.map((r) => r.message.publishTime?.toISOString() ?? null)).toEqual([
      '2023-11-14T22:13:20.000Z',
      '2023-11-14T22:13:21.000Z',
      '2025-06-01T00:00:00.000Z',
      null,
    ]);
    expect(store.rows[0]!.options).toEqual({ initialDelayMs: 60_000 });
    expect(logger.at('warn').map((l) => l.message)).toEqual([
      "The publish time 'soon' of a message of source 'orders' is not a time, so it is ignored.",
    ]);
  });

  it('stores a body that is not JSON as a dead row under its digest, then acks', async () => {
    const { store, handler, metric, logger } = setup();
    expect(await handler.handle(delivery('not json', { 'x-a': '1' }))).toEqual({
      settle: 'ack',
      outcome: 'dead',
    });
    const invalidUtf8 = new Uint8Array([0x7b, 0xff, 0x7d]);
    await handler.handle(delivery(invalidUtf8));
    await handler.handle(delivery('text with a \u0000 NUL'));
    await handler.handle(delivery('{"deep": 1e131072}'));
    const rows = store.rows.map((r) => ({
      key: r.message.idempotencyKey,
      payload: r.message.payload.text,
      options: r.options,
    }));
    expect(rows).toEqual([
      {
        key: digest('not json'),
        payload: '{"raw":"not json"}',
        options: {
          initialDelayMs: 0,
          dead: true,
          lastError: 'The body is not JSON: it does not parse as a JSON text.',
        },
      },
      {
        key: digest(invalidUtf8),
        payload: '{"raw":"base64:e/99"}',
        options: {
          initialDelayMs: 0,
          dead: true,
          lastError: 'The body is not valid UTF-8 text, so it is not JSON.',
        },
      },
      {
        key: digest('text with a \u0000 NUL'),
        payload: `{"raw":"base64:${Buffer.from('text with a \u0000 NUL').toString('base64')}"}`,
        options: {
          initialDelayMs: 0,
          dead: true,
          lastError: 'The body is not JSON: it does not parse as a JSON text.',
        },
      },
      {
        key: digest('{"deep": 1e131072}'),
        payload: '{"raw":"{\\"deep\\": 1e131072}"}',
        options: {
          initialDelayMs: 0,
          dead: true,
          lastError:
            'The JSON body holds the number 1e131072, which is outside the range of numbers that can be stored.',
        },
      },
    ]);
    expect(store.rows[0]!.message.headers).toEqual({ 'x-a': '1' });
    // Redelivered: the same digest, a duplicate, acked.
    expect(await handler.handle(delivery('not json'))).toEqual({
      settle: 'ack',
      outcome: 'duplicate',
    });
    expect(metric('rejections')).toEqual([[{ reason: 'extraction_failed' }, 4]]);
    expect(logger.at('warn')[0]!.message).toBe(
      "A message of source 'orders' cannot be stored as it came, so it is stored as a dead row and acknowledged. Reason: The body is not JSON: it does not parse as a JSON text.",
    );
  });

  it('names the reason of every dead row in last_error, and the log line says the same', async () => {
    const { store, handler, logger } = setup(rabbitSource(), 4000);
    const deep = '['.repeat(1001) + ']'.repeat(1001);
    const cases: [SourceDelivery, string][] = [
      [delivery(''), 'The body is empty, not JSON.'],
      [delivery(' \n'), 'The body is empty, not JSON.'],
      [delivery('hello'), 'The body is not JSON: it does not parse as a JSON text.'],
      [
        delivery(new Uint8Array([0x22, 0xc3, 0x28, 0x22])),
        'The body is not valid UTF-8 text, so it is not JSON.',
      ],
      [
        delivery(gzipSync('{"id": 1}')),
        'The body is gzip-encoded (compressed), not JSON text; QueueBox stores JSON as it came and does not decompress: publish it uncompressed.',
      ],
      [
        delivery(new Uint8Array([0x1b, 0x07, 0x00]), { 'Content-Encoding': 'br' }),
        'The body is br-encoded (compressed), not JSON text; QueueBox stores JSON as it came and does not decompress: publish it uncompressed.',
      ],
      [delivery(deep), 'The JSON body is nested deeper than 1000 levels.'],
      [
        delivery(JSON.stringify({ id: 'k'.repeat(256) })),
        'The idempotency key is longer than 255 characters.',
      ],
      [
        delivery(`{"id": "${'x'.repeat(4000)}"}`, { 'x-a': '1' }),
        'The body is 4010 bytes, more than inbox.maxBodyBytes (4000 bytes), so it is not stored: the row keeps its size and headers only.',
      ],
    ];
    for (const [message] of cases) {
      expect(await handler.handle(message)).toEqual({ settle: 'ack', outcome: 'dead' });
    }
    expect(store.rows.map((r) => r.options.lastError)).toEqual(cases.map(([, reason]) => reason));
    expect(logger.at('warn').map((line) => line.message)).toEqual(
      cases.map(
        ([, reason]) =>
          `A message of source 'orders' cannot be stored as it came, so it is stored as a dead row and acknowledged. Reason: ${reason}`,
      ),
    );
    // Over the bound: the size and the headers, never the body.
    const tooLarge = store.rows.at(-1)!.message;
    expect(tooLarge.payload.text).toBe('{"bodyBytes":4010}');
    expect(tooLarge.headers).toEqual({ 'x-a': '1' });
  });

  it('applies inbox.maxBodyBytes before the header filter, and stores a body of exactly the bound', async () => {
    const config = rabbitSource({
      filter: {
        require: [{ header: 'x-tenant', test: { kind: 'equals', value: 'a' } }],
        exclude: [],
      },
    });
    const { store, handler } = setup(config, 20);
    const exact = '{"id": "0123456789"}';
    expect(exact.length).toBe(20);
    expect(await handler.handle(delivery(exact, { 'x-tenant': 'a' }))).toEqual({
      settle: 'ack',
      outcome: 'stored',
    });
    expect(await handler.handle(delivery(`${exact} `, { 'x-tenant': 'b' }))).toEqual({
      settle: 'ack',
      outcome: 'dead',
    });
    expect(store.rows.map((r) => r.options.dead ?? false)).toEqual([false, true]);
    expect(handler.inHandBytes).toBe(16 * 1_048_576);
    expect(setup(rabbitSource(), 10 * 1_048_576).handler.inHandBytes).toBe(20 * 1_048_576);
  });

  it('stores a message whose attribute or header cannot be stored as a dead row with its body', async () => {
    const { store, handler } = setup();
    const long = JSON.stringify({ id: 'k'.repeat(256) });
    expect(await handler.handle(delivery(long))).toEqual({ settle: 'ack', outcome: 'dead' });
    expect(
      await handler.handle(delivery('{"id": "ok"}', { 'x-bad': 'a\u0000b', 'x-good': 'g' })),
    ).toEqual({
      settle: 'ack',
      outcome: 'dead',
    });
    expect(
      store.rows.map((r) => [r.message.idempotencyKey, r.message.payload.text, r.message.headers]),
    ).toEqual([
      [digest(long), long, {}],
      [digest('{"id": "ok"}'), '{"id": "ok"}', { 'x-good': 'g' }],
    ]);
  });

  it('stores a transform result; a rejection stores the original as a dead row; Skip stores it pending', async () => {
    const transform = (onError: 'Fail' | 'Dead' | 'Skip', expression: string) =>
      rabbitSource({ transform: { expression, timeoutMs: 1000, maxDepth: 100, onError } });
    const ok = setup(transform('Fail', '{"wrapped": $, "by": $source}'));
    await ok.handler.handle(delivery('{"id": "a"}'));
    expect(ok.store.rows[0]!.message.payload.text).toBe('{"wrapped":{"id":"a"},"by":"orders"}');

    for (const onError of ['Fail', 'Dead'] as const) {
      const { store, handler, metric } = setup(transform(onError, '$error("no")'));
      expect(await handler.handle(delivery('{"id": "a"}'))).toEqual({
        settle: 'ack',
        outcome: 'dead',
      });
      expect(store.rows[0]!.message.payload.text).toBe('{"id": "a"}');
      expect(store.rows[0]!.message.idempotencyKey).toBe('a');
      expect(store.rows[0]!.options).toEqual({
        initialDelayMs: 0,
        dead: true,
        lastError: expect.stringMatching(/^Transform failed: ./) as unknown,
      });
      expect(await handler.handle(delivery('{"id": "a"}'))).toEqual({
        settle: 'ack',
        outcome: 'duplicate',
      });
      expect(metric('rejections')).toEqual([[{ reason: 'transform_failed' }, 1]]);
    }
    const skip = setup(transform('Skip', '$error("no")'));
    expect(await skip.handler.handle(delivery('{"id": "a"}'))).toEqual({
      settle: 'ack',
      outcome: 'stored',
    });
    expect(skip.store.rows[0]!.options).toEqual({ initialDelayMs: 0 });
  });

  it('acks a filtered message without a row', async () => {
    const { store, handler, metric } = setup(
      rabbitSource({
        filter: {
          require: [{ header: 'X-Env', test: { kind: 'equals', value: 'prod' } }],
          exclude: [],
        },
      }),
    );
    expect(await handler.handle(delivery('{"id": 1}', { 'x-env': 'dev' }))).toEqual({
      settle: 'ack',
      outcome: 'filtered',
    });
    expect(await handler.handle(delivery('{"id": 2}', { 'X-ENV': 'prod' }))).toEqual({
      settle: 'ack',
      outcome: 'stored',
    });
    expect(store.rows).toHaveLength(1);
    expect(metric('filtered')).toEqual([[{ source: 'orders' }, 1]]);
  });

  it('answers retry, never ack, when the store fails, on the dead-row path too', async () => {
    const { store, handler, logger } = setup();
    store.failWith(new Error('connect ECONNREFUSED postgres://u:hunter2@db/x'));
    const verdict = await handler.handle(delivery('{"id": 1}'));
    expect(verdict).toMatchObject({ settle: 'retry' });
    expect((verdict as { reason: string }).reason).not.toContain('hunter2');
    expect(await handler.handle(delivery('not json'))).toMatchObject({ settle: 'retry' });
    expect(logger.at('error')).toHaveLength(2);
    store.failWith(null);
    expect(await handler.handle(delivery('{"id": 1}'))).toEqual({
      settle: 'ack',
      outcome: 'stored',
    });
  });
});
