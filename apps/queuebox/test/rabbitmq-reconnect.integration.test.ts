import {
  createFreshDatabase,
  createRabbitKit,
  requireService,
  startFaultProxy,
  type FaultProxy,
  type FreshDatabase,
  type QueueCollector,
  type RabbitKit,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService } from './service.js';

const SUITE = 'app: RabbitMQ connections cut mid-run';
const pg = await requireService('postgres', SUITE);
const rabbit = await requireService('rabbitmq', SUITE);
const ready = pg.available && rabbit.available;

/**
 * The service reaches RabbitMQ only through fault proxies (one for the destination, one for the
 * source), so the test cuts its broker connections mid-run without touching the shared broker.
 * Both sides reconnect by themselves, readiness says `down` for the source meanwhile, and
 * nothing is lost: every outbox row is sent and arrives, every queued message is stored once.
 */
describe.skipIf(!ready)(SUITE, () => {
  let db: FreshDatabase;
  let kit: RabbitKit;
  let toDestination: FaultProxy;
  let toSource: FaultProxy;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let delivered: QueueCollector;
  let sourceQueue: string;

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '', 'qb_rabbit_cut');
    const url = rabbit.available ? rabbit.url : '';
    kit = await createRabbitKit(url, 'qb-reconnect');
    const broker = new URL(url);
    const target = { host: broker.hostname, port: Number(broker.port || 5672) };
    toDestination = await startFaultProxy({ target });
    toSource = await startFaultProxy({ target });
    const via = (proxy: FaultProxy) => {
      const proxied = new URL(url);
      proxied.hostname = proxy.host;
      proxied.port = String(proxy.port);
      return proxied.toString();
    };
    const exchange = await kit.exchange(kit.name('events'));
    delivered = await kit.collect(
      await kit.queue(kit.name('events.q'), { exchange, patterns: ['#'] }),
    );
    sourceQueue = await kit.queue(kit.name('in'));
    service = await startTestService(
      db,
      `
database:
  migrate: true
outbox:
  pollIntervalMs: 50
  retryBaseDelayMs: 50
  maxAttempts: 50
inbox:
  relay:
    enabled: false
destinations:
  events:
    type: rabbitmq
    url: ${via(toDestination)}
    exchange: ${exchange}
routes:
  - topicPattern: "cut.*"
    destination: events
sources:
  orders:
    type: rabbitmq
    queueName: ${sourceQueue}
    connectionUrl: ${via(toSource)}
`,
    );
  });
  afterAll(async () => {
    await service?.stop();
    await toDestination?.close();
    await toSource?.close();
    await kit?.cleanup();
    await db?.drop();
  });

  const readiness = async () => {
    const response = await fetch(`${service.base}/health/ready`);
    const body = (await response.json()) as { components: Record<string, { status: string }> };
    return { status: response.status, source: body.components['rabbitmq.orders']?.status };
  };
  const count = async (sql: string) => (await db.sql.unsafe<{ n: number }[]>(sql))[0]!.n;

  it('stores every queued message once although the source connection is cut mid-run, and is not ready meanwhile', async () => {
    expect(await readiness()).toEqual({ status: 200, source: 'up' });
    const total = 400;
    for (let i = 0; i < total; i++)
      await kit.sendToQueue(sourceQueue, JSON.stringify({ id: `m-${i}`, n: i }));
    await eventually(async () => (await count('SELECT count(*)::int AS n FROM inbox')) >= 20);
    toSource.refuse();
    toSource.cut();
    await eventually(async () => (await readiness()).source === 'down');
    expect((await readiness()).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 500));
    toSource.restore();
    await eventually(async () => (await readiness()).source === 'up', 20_000);
    await eventually(
      async () => (await count('SELECT count(*)::int AS n FROM inbox')) === total,
      30_000,
    );
    expect(await count('SELECT count(DISTINCT idempotency_key)::int AS n FROM inbox')).toBe(total);
    await eventually(async () => (await kit.messageCount(sourceQueue)) === 0);
    expect(toSource.stats().accepted).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('sends every outbox row although the destination connection is cut mid-run', async () => {
    const total = 400;
    const ids = await db.sql<{ id: string }[]>`
      INSERT INTO outbox (topic, payload)
      SELECT 'cut.row', jsonb_build_object('n', n) FROM generate_series(1, ${total}) AS n
      RETURNING id`;
    await eventually(() => delivered.messages.length >= 20);
    toDestination.refuse();
    toDestination.cut();
    await new Promise((resolve) => setTimeout(resolve, 500));
    toDestination.restore();
    await eventually(
      async () =>
        (await count(
          `SELECT count(*)::int AS n FROM outbox WHERE topic = 'cut.row' AND state = 'sent'`,
        )) === total,
      30_000,
    );
    // At least once: a publish whose confirm the cut swallowed may arrive twice, none is missing.
    const arrived = new Set(delivered.messages.map((m) => m.properties.messageId as string));
    expect(ids.filter((row) => !arrived.has(row.id))).toEqual([]);
    expect(
      await count(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'cut.row' AND attempt > 0`),
    ).toBeGreaterThan(0);
  }, 60_000);
});
