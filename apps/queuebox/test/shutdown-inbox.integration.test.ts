import {
  createRabbitKit,
  requireService,
  startHttpSink,
  type HttpSink,
  type RabbitKit,
} from '@queuebox/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, serveQueueBox, terminateQueueBox, type QueueBoxProcess } from './process.js';
import { startProxiedDatabase, type ProxiedDatabase } from './proxied-service.js';
import { eventually } from './service.js';
import { ORDERS_SOURCE, RELAY_OFF, sinkRoute } from './yaml-pieces.js';

const SUITE = 'app: SIGTERM while the inbox side is busy (spec §17.2)';
const pg = await requireService('postgres', SUITE);
const rabbit = await requireService('rabbitmq', SUITE);

const SHUTDOWN_TIMEOUT_MS = 3000;
const EXIT_BOUND_MS = 5000 + 2 * SHUTDOWN_TIMEOUT_MS;
/** Every query and answer waits this long at the proxy, so a batch is still running at SIGTERM. */
const DATABASE_LATENCY_MS = 15;

/**
 * Spec §17.2 step 2 on the built app while the inbox side has work in hand: a RabbitMQ source
 * mid-batch (nothing acknowledged is lost: each message is stored or back in the queue) and the
 * relay mid-forward (no inbox row forwarded twice, none lost). QueueBox reaches PostgreSQL
 * through a fault proxy that slows every round trip, so SIGTERM lands while work is running;
 * each case then starts QueueBox again and checks that everything arrives exactly once.
 */
describe.skipIf(!pg.available)(SUITE, () => {
  let database: ProxiedDatabase | undefined;
  let sink: HttpSink;
  const running: QueueBoxProcess[] = [];

  beforeAll(() => {
    assertBuilt();
  });
  afterEach(async () => {
    for (const qb of running.splice(0)) if (qb.child.exitCode === null) qb.child.kill('SIGKILL');
    await database?.close();
    database = undefined;
    await sink?.close();
  });

  /** The case's database and its proxy, once setUp made them. */
  const db = () => database!.db;
  const proxy = () => database!.proxy;
  async function setUp(prefix: string): Promise<void> {
    database = await startProxiedDatabase(pg.available ? pg.url : '', prefix);
    sink = await startHttpSink();
  }

  async function start(yaml: string): Promise<QueueBoxProcess> {
    const { qb } = await serveQueueBox(
      database!.via,
      `
outbox:
  pollIntervalMs: 50
  shutdownTimeoutMs: ${SHUTDOWN_TIMEOUT_MS}
${sinkRoute(sink.url)}${yaml}`,
      running,
    );
    return qb;
  }

  async function terminate(qb: QueueBoxProcess) {
    const result = await terminateQueueBox(qb, 2 * EXIT_BOUND_MS);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Shutdown complete');
    expect(result.elapsed).toBeLessThan(EXIT_BOUND_MS);
    return result;
  }

  const count = async (query: Promise<{ n: number }[]>) => (await query)[0]!.n;

  describe.skipIf(!rabbit.available)('a RabbitMQ source mid-batch', () => {
    let kit: RabbitKit;
    afterAll(async () => {
      await kit?.cleanup();
    });

    it('leaves every message stored or back in the queue, and a second start stores the rest once', async () => {
      await setUp('qb_shutdown_rabbit');
      kit = await createRabbitKit(rabbit.available ? rabbit.url : '', 'qb-shutdown');
      const queue = await kit.queue(kit.name('orders'));
      const total = 300;
      for (let i = 0; i < total; i++)
        await kit.sendToQueue(queue, JSON.stringify({ id: `m-${i}` }), { persistent: true });
      const source = `
${RELAY_OFF}sources:
  orders:
    type: rabbitmq
    queueName: ${queue}
    connectionUrl: ${kit.url}
    prefetchCount: 20
`;
      const stored = () =>
        count(
          db().sql<{ n: number }[]>`SELECT count(*)::int AS n FROM inbox WHERE source = 'orders'`,
        );
      proxy().setLatency(DATABASE_LATENCY_MS);
      const first = await start(source);
      await eventually(async () => (await stored()) >= 20, 30_000);
      await terminate(first);

      // Mid-batch: part is stored, the rest (in hand and never delivered) is back in the queue.
      const storedAtExit = await stored();
      expect(storedAtExit).toBeLessThan(total);
      const ready = await eventually(async () => {
        const n = await kit.messageCount(queue);
        return storedAtExit + n >= total ? n : false;
      }, 10_000);
      expect(storedAtExit + ready).toBeGreaterThanOrEqual(total);

      proxy().setLatency(0);
      const second = await start(source);
      await eventually(async () => (await stored()) === total, 30_000);
      await eventually(async () => (await kit.messageCount(queue)) === 0, 10_000);
      await terminate(second);
      // Nothing was acknowledged without its row: every message has exactly one.
      const keys = await db().sql<{ key: string }[]>`
        SELECT idempotency_key AS key FROM inbox WHERE source = 'orders'`;
      expect(new Set(keys.map((row) => row.key))).toEqual(
        new Set(Array.from({ length: total }, (_, i) => `m-${i}`)),
      );
    }, 60_000);
  });

  it('forwards no inbox row twice when SIGTERM comes mid-forward, and a second start forwards and delivers the rest', async () => {
    await setUp('qb_shutdown_relay');
    const relay = `
inbox:
  relay:
    pollIntervalMs: 50
    claimTimeoutMs: 2000
${ORDERS_SOURCE}`;
    const total = 1000;
    const first = await start(relay);
    proxy().setLatency(DATABASE_LATENCY_MS);
    await db().sql`
      INSERT INTO inbox (source, idempotency_key, event_type, payload, consumption)
      SELECT 'orders', 'k-' || n, 'order.placed', jsonb_build_object('n', n), 'push'
      FROM generate_series(1, ${total}) AS n`;
    const forwarded = () => count(db().sql<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox`);
    await eventually(async () => (await forwarded()) > 0, 30_000);
    await terminate(first);

    // Mid-forward: some rows forwarded, others not yet; each forwarded row once, with its
    // inbox row processed in the same transaction.
    const outboxAtExit = await forwarded();
    expect(outboxAtExit).toBeLessThan(total);
    const twice = await db().sql`
      SELECT headers->>'x-inbox-id' AS id FROM outbox GROUP BY 1 HAVING count(*) > 1`;
    expect(twice).toEqual([]);
    expect(
      await count(db().sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM inbox WHERE state = 'processed'`),
    ).toBe(outboxAtExit);

    proxy().setLatency(0);
    const second = await start(relay);
    await eventually(async () => {
      const [left] = await db().sql<{ n: number }[]>`
        SELECT (SELECT count(*) FROM inbox WHERE state <> 'processed')::int
             + (SELECT count(*) FROM outbox WHERE state <> 'sent')::int AS n`;
      return left!.n === 0;
    }, 40_000);
    await terminate(second);
    const links = await db().sql<{ outbox: number; inbox: number; linked: number }[]>`
      SELECT count(*)::int AS outbox,
             count(DISTINCT headers->>'x-inbox-id')::int AS inbox,
             count(*) FILTER (WHERE headers->>'x-inbox-id' IN (SELECT id::text FROM inbox))::int AS linked
      FROM outbox`;
    expect(links).toEqual([{ outbox: total, inbox: total, linked: total }]);
    const delivered = new Set(sink.requests.map((request) => request.headers['x-message-id']));
    expect(delivered.size).toBe(total);
  }, 60_000);
});
