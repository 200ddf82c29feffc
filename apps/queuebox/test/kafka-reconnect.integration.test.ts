import {
  brokerAddress,
  createFreshDatabase,
  createKafkaKit,
  startFaultProxy,
  type ConsumedRecord,
  type FaultProxy,
  type FreshDatabase,
  type KafkaKit,
} from '@queuebox/testing';
import { skipTitle } from '@queuebox/testing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, readiness } from './e2e-rows.js';
import { kafkaSuite, kafkaThrough } from './kafka-e2e.js';
import { eventually, startTestService } from './service.js';

const SUITE = 'app connections cut mid-run';
const { ready, skip, pgUrl, brokers } = await kafkaSuite(SUITE, 2);

/**
 * The source and the destination each reach Kafka through a fault proxy of their own (kafkajs
 * dials it for every broker); cutting either mid-run loses nothing: every record stored once and
 * committed, every row sent and on the topic (at least once), and readiness `down` while the
 * source is cut off. A consumer that lost its connection joins its group again as a new member,
 * which may wait for the broker to drop the old one (kafkajs's 30 s session), hence the bounds.
 */
describe.skipIf(!ready)(skipTitle('Kafka connections cut mid-run', skip), () => {
  let db: FreshDatabase;
  let kit: KafkaKit;
  let toSource: FaultProxy;
  let toDestination: FaultProxy;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let source: string;
  let group: string;
  let delivered: { records: ConsumedRecord[] };

  beforeAll(async () => {
    db = await createFreshDatabase(pgUrl, 'qb_kafka_reconnect');
    kit = await createKafkaKit(brokers, 'qb-kreconnect');
    source = await kit.topic(kit.name('in'), 2);
    const out = await kit.topic(kit.name('out'), 2);
    delivered = kit.collect(out);
    group = kit.name('queuebox');
    const target = brokerAddress(brokers);
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
  maxAttempts: 50
inbox:
  relay:
    enabled: false
destinations:
  out:
    type: kafka
    bootstrapServers: ${brokers}
    topic: ${out}
    timeoutMs: 2000
routes:
  - topicPattern: "cut.*"
    destination: out
sources:
  orders:
    type: kafka
    bootstrapServers: ${brokers}
    topics: [${source}]
    groupId: ${group}
`,
      {},
      undefined,
      kafkaThrough({ destinations: { out: toDestination }, sources: { orders: toSource } }),
    );
  });
  afterAll(async () => {
    await service?.stop();
    await toSource?.close();
    await toDestination?.close();
    await kit?.cleanup();
    await db?.drop();
  });

  const sourceReadiness = () => readiness(service.base, 'kafka.orders');

  it('stores every record once although the source connection is cut mid-run, and is not ready meanwhile', async () => {
    await eventually(async () => (await sourceReadiness()).source === 'up', 30_000);
    expect((await sourceReadiness()).status).toBe(200);
    const total = 400;
    for (let i = 0; i < total; i++)
      await kit.produce(source, {
        key: `k-${i % 16}`,
        value: JSON.stringify({ id: `m-${i}`, n: i }),
      });
    await eventually(async () => (await count(db, 'SELECT count(*)::int AS n FROM inbox')) >= 20);
    toSource.refuse();
    toSource.cut();
    await eventually(async () => (await sourceReadiness()).source === 'down', 20_000);
    expect((await sourceReadiness()).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 500));
    toSource.restore();
    await eventually(async () => (await sourceReadiness()).source === 'up', 60_000);
    await eventually(
      async () => (await count(db, 'SELECT count(*)::int AS n FROM inbox')) === total,
      30_000,
    );
    expect(await count(db, 'SELECT count(DISTINCT idempotency_key)::int AS n FROM inbox')).toBe(
      total,
    );
    await eventually(async () => (await kit.lag(group, source)) === 0, 20_000);
    expect(toSource.stats().accepted).toBeGreaterThanOrEqual(2);
  }, 150_000);

  it('sends every outbox row although the destination connection is cut mid-run', async () => {
    const total = 400;
    // Acks slowed down, so the cut finds publishes waiting for them and rows still to send.
    toDestination.setLatency({ toClient: 200 });
    const ids = await db.sql<{ id: string }[]>`
      INSERT INTO outbox (topic, key, payload)
      SELECT 'cut.row', 'k-' || (n % 16), jsonb_build_object('n', n)
      FROM generate_series(1, ${total}) AS n
      RETURNING id`;
    await eventually(() => delivered.records.length >= 20, 30_000);
    toDestination.refuse();
    toDestination.cut();
    // Longer than a row's 2000 ms budget: the rows in flight fail and take the retry path,
    // rather than kafkajs's own retries carrying them over the cut.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    toDestination.setLatency(0);
    toDestination.restore();
    await eventually(
      async () =>
        (await count(
          db,
          `SELECT count(*)::int AS n FROM outbox WHERE topic = 'cut.row' AND state = 'sent'`,
        )) === total,
      60_000,
    );
    const arrivedIds = () =>
      new Set(delivered.records.map((r) => r.headers.find(([n]) => n === 'x-message-id')?.[1]));
    // At least once: a publish whose ack the cut swallowed may be on the topic twice (Kafka
    // keeps no duplicate window across producers); none is missing.
    await eventually(() => ids.every((row) => arrivedIds().has(row.id)), 30_000);
    expect(delivered.records.length).toBeGreaterThanOrEqual(total);
    expect(
      await count(
        db,
        `SELECT count(*)::int AS n FROM outbox WHERE topic = 'cut.row' AND attempt > 0`,
      ),
    ).toBeGreaterThan(0);
  }, 150_000);
});
