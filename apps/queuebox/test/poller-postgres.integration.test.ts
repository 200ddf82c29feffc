import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Publisher } from '@queuebox/core';
import { createPostgresOutboxStore, type TableNames } from '@queuebox/postgres';
import {
  createMemoryMetrics,
  type FreshDatabase,
  RecordingLogger,
  requireService,
  until,
} from '@queuebox/testing';
import {
  createHttpPublisher,
  createJsonataTransformer,
  createMessageRouter,
  createTransformPipeline,
  OutboxPoller,
  PublisherRegistry,
  validateRouting,
  type OutboxPollerConfig,
} from '@queuebox/outbox-service';
import { createMigratedDatabase } from './migrated-database.js';

/**
 * The poller against real PostgreSQL (the @queuebox/postgres outbox store and migrations) and a
 * real HTTP sink through the real HTTP publisher, router and (stage-less) transform pipeline.
 * It lives in the app's tests because outbox-service never depends on an adapter.
 */
const SUITE = 'outbox-service: poller on PostgreSQL';
const pg = await requireService('postgres', SUITE);
const ready = pg.available;

interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
  readonly path: string;
}

type SinkAnswer = (request: Received) => Promise<number> | number;

/** A real HTTP destination: records every request and answers what `answer` says. */
async function startSink(
  answer: SinkAnswer,
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = {
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
        path: req.url ?? '',
      };
      received.push(request);
      void Promise.resolve(answer(request)).then((status) => {
        res.statusCode = status;
        res.end(status >= 300 ? 'sink says no' : '');
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, server };
}

async function stopSink(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe.skipIf(!ready)(SUITE, () => {
  let db: FreshDatabase;
  let tables: TableNames;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    if (!pg.available) return;
    ({ db, tables } = await createMigratedDatabase(pg.url, 'qb_poller'));
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await db.sql`DELETE FROM outbox`;
  });

  afterAll(async () => {
    await db?.drop();
  });

  function pollerOn(sinkUrl: string, config: Partial<OutboxPollerConfig> = {}) {
    const metrics = createMemoryMetrics().outbox;
    const logger = new RecordingLogger();
    const fullConfig: OutboxPollerConfig = {
      pollIntervalMs: 20,
      batchSize: 100,
      concurrency: 8,
      retryBaseDelayMs: 20,
      claimTimeoutMs: 30_000,
      pendingGaugeIntervalMs: 5_000,
      shutdownTimeoutMs: 2_000,
      ...config,
    };
    const destinations = {
      sink: {
        type: 'http',
        baseUrl: sinkUrl,
        path: '/events',
        timeoutMs: 10_000,
        headers: { 'X-Static': 'static-value' },
        auth: null,
        transform: null,
      },
    } as const;
    const publisher: Publisher = createHttpPublisher({
      config: {
        destinations,
        http: { maxErrorBodyBytes: 2048, blockPrivateAddresses: false },
        outbox: { concurrency: fullConfig.concurrency },
      },
    });
    const routes = [
      {
        topicPattern: '**',
        destination: 'sink',
        routingKeyTemplate: null,
        routingKeyMissingFieldDefault: '',
        transform: null,
      },
    ];
    const routing = validateRouting({ destinations, routes }, createJsonataTransformer());
    const poller = new OutboxPoller(fullConfig, {
      store: createPostgresOutboxStore(db.sql, tables, systemClock),
      router: createMessageRouter(routing),
      pipeline: createTransformPipeline(),
      publishers: new PublisherRegistry([publisher]),
      metrics,
      logger,
    });
    cleanups.push(async () => {
      await poller.close();
      await publisher.close();
    });
    return { poller, metrics, logger };
  }

  async function insert(
    rows: { topic: string; key?: string | null; payload: object; headers?: object }[],
  ): Promise<string[]> {
    const ids: string[] = [];
    // One statement per row in order, so `sequence` follows the list.
    for (const row of rows) {
      const [inserted] = await db.sql<{ id: string }[]>`
        INSERT INTO outbox (topic, key, payload, headers)
        VALUES (${row.topic}, ${row.key ?? null}, ${db.sql.json(row.payload)}, ${db.sql.json(row.headers ?? {})})
        RETURNING id::text AS id`;
      ids.push(inserted!.id);
    }
    return ids;
  }

  async function states(): Promise<Map<string, { state: string; attempt: number }>> {
    const rows = await db.sql<
      { id: string; state: string; attempt: number }[]
    >`SELECT id::text AS id, state, attempt FROM outbox`;
    return new Map(rows.map((r) => [r.id, { state: r.state, attempt: r.attempt }]));
  }

  async function countIn(state: string): Promise<number> {
    const [row] = await db.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM outbox WHERE state = ${state}`;
    return row!.n;
  }

  it('delivers a row with every header and marks it sent', async () => {
    const sink = await startSink(() => 200);
    cleanups.push(() => stopSink(sink.server));
    const [keyed, unkeyed] = await insert([
      {
        topic: 'order.created',
        key: 'order-42',
        payload: { step: 1 },
        headers: { 'X-Correlation-Id': 'corr-9', 'X-Tenant': 't1' },
      },
      { topic: 'order.noted', key: null, payload: [1, 2, 3] },
    ]);
    const { poller } = pollerOn(sink.url);
    poller.start();
    let current = await states();
    while ([...current.values()].some((r) => r.state !== 'sent')) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      current = await states();
    }
    const byId = new Map(sink.received.map((r) => [r.headers['x-message-id'] as string, r]));
    const first = byId.get(keyed!)!;
    expect(first.path).toBe('/events');
    expect(first.body).toEqual({ step: 1 });
    expect(first.headers).toMatchObject({
      'content-type': 'application/json',
      'x-message-id': keyed,
      'x-topic': 'order.created',
      'x-attempt': '0',
      'x-message-key': 'order-42',
      'x-correlation-id': 'corr-9',
      'x-tenant': 't1',
      'x-static': 'static-value',
    });
    const second = byId.get(unkeyed!)!;
    expect(second.body).toEqual([1, 2, 3]);
    expect(second.headers['x-message-key']).toBeUndefined();
    expect(second.headers['x-attempt']).toBe('0');
  });

  it('keeps per-key order under 4 concurrent pollers while the sink fails some first attempts', async () => {
    const inFlight = new Map<string, number>();
    const delivered = new Map<string, number[]>();
    let overlap = false;
    const sink = await startSink(async (request) => {
      const key = request.headers['x-message-key'] as string;
      const { n } = request.body as { n: number };
      if ((inFlight.get(key) ?? 0) > 0) overlap = true;
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight.set(key, inFlight.get(key)! - 1);
      if (n % 7 === 3 && request.headers['x-attempt'] === '0') return 503;
      delivered.set(key, [...(delivered.get(key) ?? []), n]);
      return 200;
    });
    cleanups.push(() => stopSink(sink.server));
    const keys = Array.from({ length: 10 }, (_, k) => `key-${k}`);
    const rows = [];
    for (let n = 0; n < 20; n++)
      for (const key of keys) rows.push({ topic: 'order.step', key, payload: { n } });
    await insert(rows);

    const pollers = Array.from({ length: 4 }, () =>
      pollerOn(sink.url, { concurrency: 4, batchSize: 10 }),
    );
    for (const { poller } of pollers) poller.start();
    const deadline = Date.now() + 30_000;
    while ((await countIn('sent')) < 200) {
      if (Date.now() > deadline) throw new Error(`only ${await countIn('sent')} of 200 sent`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(overlap).toBe(false);
    for (const key of keys)
      expect(delivered.get(key)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    const retried = [...(await states()).values()].filter((r) => r.attempt === 1).length;
    expect(retried).toBe(keys.length * 3); // n = 3, 10, 17 of each key failed once
  });

  it("reclaims a killed poller's rows and delivers them again without counting an attempt", async () => {
    // The first replica publishes into a sink that never answers, then dies (its leases stop).
    const blackHole = await startSink(() => new Promise<number>(() => undefined));
    cleanups.push(() => stopSink(blackHole.server));
    const healthy = await startSink(() => 200);
    cleanups.push(() => stopSink(healthy.server));
    const ids = await insert(
      [1, 2, 3].map((n) => ({ topic: 'crash.test', key: null, payload: { n } })),
    );

    const doomed = pollerOn(blackHole.url, { claimTimeoutMs: 1_000, shutdownTimeoutMs: 50 });
    doomed.poller.start();
    await until(() => blackHole.received.length === 3, 5_000, 'the doomed replica to publish');
    await doomed.poller.close();
    expect(doomed.logger.messages('warn')[0]).toContain(
      'QueueBox abandoned 3 in-flight message(s)',
    );
    expect(
      [...(await states()).values()].every((r) => r.state === 'processing' && r.attempt === 0),
    ).toBe(true);

    const survivor = pollerOn(healthy.url, { claimTimeoutMs: 1_000 });
    survivor.poller.start();
    const deadline = Date.now() + 10_000;
    while ((await countIn('sent')) < 3) {
      if (Date.now() > deadline) throw new Error('the reclaimed rows were not delivered');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(healthy.received.map((r) => r.headers['x-message-id']).sort()).toEqual([...ids].sort());
    expect(healthy.received.every((r) => r.headers['x-attempt'] === '0')).toBe(true);
    expect([...(await states()).values()].every((r) => r.attempt === 0)).toBe(true);
    expect(survivor.metrics.reclaimed.value()).toBe(3);
  });
});
