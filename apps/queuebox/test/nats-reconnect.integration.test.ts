import {
  createFreshDatabase,
  createNatsKit,
  requireService,
  startFaultProxy,
  type FaultProxy,
  type FreshDatabase,
  type NatsKit,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService } from './service.js';

const SUITE = 'app: NATS connections cut mid-run';
const pg = await requireService('postgres', SUITE);
const nats = await requireService('nats', SUITE);
const ready = pg.available && nats.available;

/**
 * The source and the destination each reach NATS through a fault proxy of their own; cutting
 * either mid-run loses nothing: every message stored once, every row sent (at least once), and
 * readiness `down` while the source is cut off.
 */
describe.skipIf(!ready)(SUITE, () => {
  let db: FreshDatabase;
  let kit: NatsKit;
  let toSource: FaultProxy;
  let toDestination: FaultProxy;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let source: string;
  let delivered: string;

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '', 'qb_nats_reconnect');
    const url = nats.available ? nats.url : '';
    kit = createNatsKit(url, 'qb-nreconnect');
    source = await kit.stream(kit.name('IN'), [kit.subject('in.>')]);
    delivered = await kit.stream(kit.name('OUT'), [kit.subject('out.>')]);
    const server = new URL(url);
    const target = { host: server.hostname, port: Number(server.port || 4222) };
    toSource = await startFaultProxy({ target });
    toDestination = await startFaultProxy({ target });
    service = await startTestService(
      db,
      `
database:
  migrate: true
outbox:
  pollIntervalMs: 50
  retryBaseDelayMs: 50
inbox:
  relay:
    enabled: false
destinations:
  out:
    type: nats
    servers: nats://${toDestination.host}:${toDestination.port}
    subject: ${kit.subject('out.rows')}
routes:
  - topicPattern: "cut.*"
    destination: out
sources:
  orders:
    type: nats
    servers: nats://${toSource.host}:${toSource.port}
    stream: ${source}
    durable: queuebox
    ackWaitMs: 3000
`,
    );
  });
  afterAll(async () => {
    await service?.stop();
    await toSource?.close();
    await toDestination?.close();
    await kit?.cleanup();
    await db?.drop();
  });

  const readiness = async () => {
    const response = await fetch(`${service.base}/health/ready`);
    const body = (await response.json()) as { components: Record<string, { status: string }> };
    return { status: response.status, source: body.components['nats.orders']?.status };
  };
  const count = async (sql: string) => (await db.sql.unsafe<{ n: number }[]>(sql))[0]!.n;

  it('stores every message once although the source connection is cut mid-run, and is not ready meanwhile', async () => {
    expect(await readiness()).toEqual({ status: 200, source: 'up' });
    const total = 400;
    await Promise.all(
      Array.from({ length: total }, (_, i) =>
        kit.publish(kit.subject('in.orders'), JSON.stringify({ id: `m-${i}`, n: i })),
      ),
    );
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
    await eventually(async () => (await kit.outstanding(source, 'queuebox')) === 0, 20_000);
    expect(toSource.stats().accepted).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('sends every outbox row although the destination connection is cut mid-run', async () => {
    const total = 400;
    // PubAcks slowed down, so the cut finds publishes waiting for them and rows still to send.
    toDestination.setLatency({ toClient: 200 });
    const ids = await db.sql<{ id: string }[]>`
      INSERT INTO outbox (topic, payload)
      SELECT 'cut.row', jsonb_build_object('n', n) FROM generate_series(1, ${total}) AS n
      RETURNING id`;
    await eventually(async () => (await kit.messages(delivered)).length >= 20);
    toDestination.refuse();
    toDestination.cut();
    await new Promise((resolve) => setTimeout(resolve, 500));
    toDestination.setLatency(0);
    toDestination.restore();
    await eventually(
      async () =>
        (await count(
          `SELECT count(*)::int AS n FROM outbox WHERE topic = 'cut.row' AND state = 'sent'`,
        )) === total,
      30_000,
    );
    const stored = await kit.messages(delivered);
    const arrived = new Set(stored.map((m) => m.headers['x-message-id']?.[0]));
    expect(ids.filter((row) => !arrived.has(row.id))).toEqual([]);
    // The message id deduplicated every retry of a publish the cut had let through.
    expect(stored).toHaveLength(total);
    expect(
      await count(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'cut.row' AND attempt > 0`),
    ).toBeGreaterThan(0);
  }, 60_000);
});
