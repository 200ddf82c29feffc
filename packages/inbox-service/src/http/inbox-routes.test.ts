import { JsonPayload, QueueBoxError, Secret, type SourceConfig } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { httpSource, inMemoryInboxStore } from '@queuebox/testing';
import {
  expectAnswer,
  UUID,
  KEY_MISSING,
  transformer,
  setup,
  stripe,
  chunked,
} from '../../test/route-harness.js';

describe('202 new message', () => {
  it('stores the message and answers with the inbox row id', async () => {
    const t = setup({
      stripe: stripe({
        aggregateIdPath: ['$.customer'],
        consumption: 'pull',
        initialDelayMs: 30_000,
      }),
    });
    const res = await t.post(
      '/inbox/stripe',
      '{"id":"evt_1","type":"invoice.paid","customer":"cus_9","n":1}',
      {
        'Content-Type': 'application/json',
        'X-Correlation-Id': 'corr-1',
        'X-Tenant': 'acme',
      },
    );
    expect(res.status).toBe(202);
    const text = await res.text();
    expect(text).toMatch(/^\{"messageId":"[0-9a-f-]{36}"\}$/);
    const { messageId } = JSON.parse(text) as { messageId: string };
    expect(messageId).toMatch(UUID);
    expect(res.headers.get('x-correlation-id')).toBe('corr-1');
    expect(t.store.rows).toHaveLength(1);
    expect(t.store.rows[0]).toEqual({
      message: {
        id: messageId,
        source: 'stripe',
        idempotencyKey: 'evt_1',
        aggregateId: 'cus_9',
        eventType: 'invoice.paid',
        payload: JsonPayload.fromText(
          '{"id":"evt_1","type":"invoice.paid","customer":"cus_9","n":1}',
        ),
        headers: {
          'content-type': 'application/json',
          'x-correlation-id': 'corr-1',
          'x-tenant': 'acme',
        },
        correlationId: 'corr-1',
        consumption: 'pull',
        publishTime: null,
      },
      options: { initialDelayMs: 30_000 },
    });
    expect(t.metrics.messages.series()).toEqual([{ labels: { status: 'new' }, value: 1 }]);
  });

  it('parses the body as JSON whatever the Content-Type says', async () => {
    const t = setup({ stripe: stripe() });
    const res = await t.post('/inbox/stripe', '{"id":"evt_1"}', { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(202);
    const none = await t.post('/inbox/stripe', '{"id":"evt_2"}');
    expect(none.status).toBe(202);
  });

  it('passes the publish time and the initial delay to the store', async () => {
    const t = setup({
      s: stripe({
        initialDelayMs: 60_000,
        scheduledAtHeader: 'X-Published-At',
        scheduledAtPath: ['$.created'],
      }),
    });
    await t.post('/inbox/stripe', '{"id":"a","created":1700000000}');
    await t.post('/inbox/stripe', '{"id":"b","created":1700000000}', {
      'X-Published-At': '2026-09-21T10:00:00Z',
    });
    await t.post('/inbox/stripe', '{"id":"c","created":"soon"}');
    expect(t.store.rows.map((r) => r.message.publishTime?.toISOString() ?? null)).toEqual([
      '2023-11-14T22:13:20.000Z',
      '2026-09-21T10:00:00.000Z',
      null,
    ]);
    expect(t.store.rows.every((r) => r.options.initialDelayMs === 60_000)).toBe(true);
    expect(t.logger.at('warn').map((l) => l.message)).toEqual([
      "The publish time 'soon' of a message of source 's' is not a time, so it is ignored.",
    ]);
  });

  it('accepts a chunked body without a length under the cap', async () => {
    const t = setup({ stripe: stripe() });
    const res = await t.post('/inbox/stripe', chunked(['{"id":', '"evt_chunked"', '}']));
    expect(res.status).toBe(202);
    expect(t.store.rows[0]?.message.idempotencyKey).toBe('evt_chunked');
  });

  it('joins basePath and path by segments and answers 404 to other methods and paths', async () => {
    const t = setup(
      { a: httpSource({ path: 'a', idempotencyKeyPath: ['$.id'] }) },
      { basePath: '/hooks/' },
    );
    expect((await t.post('/hooks/a', '{"id":"1"}')).status).toBe(202);
    expect((await t.app.request('/hooks/a')).status).toBe(404);
    expect((await t.post('/inbox/a', '{"id":"1"}')).status).toBe(404);
    expect((await t.post('/hooks/a/', '{"id":"1"}')).status).toBe(404);
  });
});

describe('waking the relay', () => {
  it('calls onPushStored for a new push row due at once; not for pull, delayed or duplicate rows', async () => {
    let wakes = 0;
    const onPushStored = () => wakes++;
    const t = setup(
      {
        push: stripe({ path: 'push' }),
        pull: stripe({ path: 'pull', consumption: 'pull' }),
        later: stripe({ path: 'later', initialDelayMs: 5_000 }),
      },
      { onPushStored },
    );
    expect((await t.post('/inbox/push', '{"id":"1"}')).status).toBe(202);
    expect(wakes).toBe(1);
    expect((await t.post('/inbox/push', '{"id":"1"}')).status).toBe(200);
    expect((await t.post('/inbox/pull', '{"id":"2"}')).status).toBe(202);
    expect((await t.post('/inbox/later', '{"id":"3"}')).status).toBe(202);
    expect(wakes).toBe(1);
  });
});

describe('200 duplicate', () => {
  it('answers a repeat of (source, key) without a second row', async () => {
    const t = setup({ stripe: stripe() });
    await t.post('/inbox/stripe', '{"id":"evt_1","v":1}');
    const res = await t.post('/inbox/stripe', '{"id":"evt_1","v":2}', {
      'X-Correlation-Id': 'again',
    });
    await expectAnswer(res, 200, '{"status":"duplicate"}');
    expect(res.headers.get('x-correlation-id')).toBe('again');
    expect(t.store.rows).toHaveLength(1);
    expect(t.metrics.messages.series()).toEqual([
      { labels: { status: 'new' }, value: 1 },
      { labels: { status: 'duplicate' }, value: 1 },
    ]);
  });

  it('keeps the same key apart across sources', async () => {
    const t = setup({
      a: httpSource({ path: '/a', idempotencyKeyPath: ['$.id'] }),
      b: httpSource({ path: '/b', idempotencyKeyPath: ['$.id'] }),
    });
    expect((await t.post('/inbox/a', '{"id":"1"}')).status).toBe(202);
    expect((await t.post('/inbox/b', '{"id":"1"}')).status).toBe(202);
  });
});

describe('202 filtered', () => {
  const filtered = stripe({
    filter: {
      require: [{ header: 'X-Env', test: { kind: 'equals', value: 'prod' } }],
      exclude: [],
    },
    transform: { expression: 'reshape', timeoutMs: 100, maxDepth: 100, onError: 'Fail' },
  });

  it('drops the message before extraction, counts it and names the rule at DEBUG', async () => {
    const t = setup({ stripe: filtered });
    const before = transformer.evaluations.length;
    // No key and no JSON at all: the filter runs first.
    const res = await t.post('/inbox/stripe', 'not json', {
      'X-Env': 'staging-secret-value',
      'X-Correlation-Id': 'c',
    });
    await expectAnswer(res, 202, '{"status":"filtered"}');
    // Step 5 comes before the correlation id of step 6.
    expect(res.headers.get('x-correlation-id')).toBeNull();
    expect(t.store.rows).toHaveLength(0);
    expect(transformer.evaluations.length).toBe(before);
    expect(t.metrics.filtered.series()).toEqual([{ labels: { source: 'stripe' }, value: 1 }]);
    const debug = t.logger.at('debug').map((l) => l.message);
    expect(debug).toEqual([
      "Source 'stripe' dropped a message because it failed the header filter rule require[0] (X-Env equals).",
    ]);
    expect(JSON.stringify(t.logger.lines)).not.toContain('staging-secret-value');
  });

  it('lets a matching message through', async () => {
    const t = setup({ stripe: filtered });
    expect((await t.post('/inbox/stripe', '{"id":"1"}', { 'x-env': 'prod' })).status).toBe(202);
  });
});

describe('400', () => {
  it('answers Invalid JSON for a body that is not JSON, with the correlation id', async () => {
    const t = setup({ stripe: stripe() });
    for (const body of ['', 'not json', '{"id":', '{"id":"1"} trailing', "{'id':'1'}"]) {
      const res = await t.post('/inbox/stripe', body, { 'X-Correlation-Id': 'c-400' });
      await expectAnswer(res, 400, '{"error":"Invalid JSON"}');
      expect(res.headers.get('x-correlation-id')).toBe('c-400');
    }
    const none = await t.post('/inbox/stripe', null);
    await expectAnswer(none, 400, '{"error":"Invalid JSON"}');
    expect(t.store.rows).toHaveLength(0);
    expect(t.metrics.rejections.series()).toEqual([]);
  });

  it('answers the missing-key error, logs one WARN naming what was tried and counts it', async () => {
    const t = setup({
      stripe: stripe({
        idempotencyKeyHeader: 'Idempotency-Key',
        idempotencyKeyExpression: 'data.id',
        idempotencyKeyPath: ['$.id', '$.object.id'],
      }),
    });
    const res = await t.post('/inbox/stripe', '{"object":{"id":{}}}', { 'Idempotency-Key': ' ' });
    await expectAnswer(res, 400, KEY_MISSING);
    expect(res.headers.get('x-correlation-id')).toMatch(UUID);
    expect(t.logger.at('warn').map((l) => l.message)).toEqual([
      "The idempotency key header 'Idempotency-Key', expression 'data.id', path '$.id', path '$.object.id' of source 'stripe' matched nothing. The message is rejected with 400.",
    ]);
    expect(t.metrics.rejections.series()).toEqual([
      { labels: { reason: 'extraction_failed' }, value: 1 },
    ]);
  });

  it('refuses a JSON body that is not an object when the key path finds nothing in it', async () => {
    const t = setup({ stripe: stripe() });
    for (const body of ['[1,2]', '"evt"', '42', 'null']) {
      await expectAnswer(await t.post('/inbox/stripe', body), 400, KEY_MISSING);
    }
  });
});

describe('500 storage failure', () => {
  it('answers Storage failed when the store does not settle within the bound', async () => {
    // A database that stops answering: the store would wait for the pool's connection timeout.
    const store = { ...inMemoryInboxStore(), store: () => new Promise<never>(() => undefined) };
    const t = setup({ stripe: stripe() }, { store, storeAnswerBoundMs: 50 });
    const started = performance.now();
    const res = await t.post('/inbox/stripe', '{"id":"1"}');
    await expectAnswer(res, 500, '{"error":"Storage failed"}');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(t.metrics.rejections.series()).toEqual([
      { labels: { reason: 'storage_failed' }, value: 1 },
    ]);
    expect(t.logger.messages('error')).toEqual([
      "Storing a message of source 'stripe' failed. The sender gets 500 and may resend it. Reason: QueueBoxError: The database did not store the message within 50 ms; a retry can succeed.",
    ]);
  });

  it('answers Storage failed, counts it and logs the sanitized reason', async () => {
    const t = setup({ stripe: stripe() });
    t.store.failWith(
      new Error(
        'connect ECONNREFUSED postgres://queuebox:hunter2@db:5432/queuebox password=hunter2',
      ),
    );
    const res = await t.post('/inbox/stripe', '{"id":"1"}', { 'X-Correlation-Id': 'c-500' });
    await expectAnswer(res, 500, '{"error":"Storage failed"}');
    expect(res.headers.get('x-correlation-id')).toBe('c-500');
    expect(t.metrics.rejections.series()).toEqual([
      { labels: { reason: 'storage_failed' }, value: 1 },
    ]);
    const errors = t.logger.at('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(
      /^Storing a message of source 'stripe' failed\. The sender gets 500 and may resend it\. Reason: Error: connect ECONNREFUSED/,
    );
    expect(errors[0]!.message).not.toContain('hunter2');
    expect(errors[0]!.fields).toMatchObject({ source: 'stripe', correlationId: 'c-500' });
  });
});

describe('mounting', () => {
  it('mounts only http sources', async () => {
    const rabbit = {
      ...httpSource({ path: '/rabbit' }),
      type: 'rabbitmq',
    } as unknown as SourceConfig;
    const t = setup({ r: rabbit });
    expect((await t.post('/inbox/rabbit', '{"id":"1"}')).status).toBe(404);
  });

  it('stops on two sources with the same route, and on a bad expression, naming the key', () => {
    const run = (sources: Record<string, SourceConfig>) => () => setup(sources);
    expect(
      run({
        a: httpSource({ path: '/x', idempotencyKeyPath: ['$.id'] }),
        b: httpSource({ path: 'x/', idempotencyKeyPath: ['$.id'] }),
      }),
    ).toThrow("sources.b.path: the route /inbox/x is already the route of source 'a'.");
    expect(
      run({
        s: stripe({
          transform: { expression: 'nope(', timeoutMs: 100, maxDepth: 100, onError: 'Fail' },
        }),
      }),
    ).toThrow(/^sources\.s\.transform\.expression: the JSONata expression does not compile: /);
    try {
      setup({ s: stripe({ idempotencyKeyExpression: 'nope(' }) });
      expect.fail('no error');
    } catch (error: unknown) {
      expect(error).toBeInstanceOf(QueueBoxError);
      expect((error as QueueBoxError).message).toMatch(/^sources\.s\.idempotencyKeyExpression: /);
    }
  });
});

describe('the route enumerates every response code (spec §11.3)', () => {
  it('answers 202, 202 filtered, 200, 400, 400, 401, 413, 422, 429 and 500 with the exact bodies', async () => {
    const t = setup({
      open: httpSource({
        path: '/open',
        idempotencyKeyPath: ['$.id'],
        filter: { require: [], exclude: [{ header: 'X-Drop', test: { kind: 'exists' } }] },
        transform: { expression: 'fails', timeoutMs: 100, maxDepth: 100, onError: 'Fail' },
      }),
      plain: httpSource({
        path: '/plain',
        idempotencyKeyPath: ['$.id'],
        rateLimit: { requestsPerMinute: 4 },
      }),
      locked: httpSource({
        path: '/locked',
        idempotencyKeyPath: ['$.id'],
        auth: { type: 'bearer', token: new Secret('t') },
      }),
    });
    const seen: string[] = [];
    const record = async (res: Response) => seen.push(`${res.status} ${await res.text()}`);
    await record(await t.post('/inbox/plain', '{"id":"1"}'));
    await record(await t.post('/inbox/plain', '{"id":"1"}'));
    await record(await t.post('/inbox/plain', 'x'));
    await record(await t.post('/inbox/plain', '{}'));
    await record(await t.post('/inbox/open', '{}', { 'X-Drop': '1' }));
    await record(await t.post('/inbox/locked', '{"id":"1"}'));
    await record(await t.post('/inbox/open', '{"id":"1"}', { 'Content-Length': '5000' }));
    await record(await t.post('/inbox/open', '{"id":"1"}'));
    t.store.failWith(new Error('down'));
    await record(await t.post('/inbox/locked', '{"id":"2"}', { Authorization: 'Bearer t' }));
    const limited = await t.post('/inbox/plain', '{"id":"2"}');
    expect(limited.headers.get('retry-after')).toBe('60');
    await record(limited);
    const messageId = /^202 \{"messageId":"([0-9a-f-]{36})"\}$/.exec(seen[0] ?? '')?.[1];
    expect(messageId).toMatch(UUID);
    expect(seen).toEqual([
      `202 {"messageId":"${messageId}"}`,
      '200 {"status":"duplicate"}',
      '400 {"error":"Invalid JSON"}',
      `400 ${KEY_MISSING}`,
      '202 {"status":"filtered"}',
      '401 {"error":"Missing Authorization header"}',
      '413 {"error":"Request body exceeds 1024 bytes"}',
      '422 {"error":"Transform failed: T1003: boom on password=[REDACTED]"}',
      '500 {"error":"Storage failed"}',
      '429 ',
    ]);
  });
});
