import {
  createFreshDatabase,
  createKafkaKit,
  startFaultProxy,
  type FaultProxy,
  type FreshDatabase,
  type KafkaKit,
} from '@queuebox/testing';
import { skipTitle } from '@queuebox/testing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, digest, inboxRows, readyComponents } from './e2e-rows.js';
import { kafkaSuite } from './kafka-e2e.js';
import { eventually, startTestService } from './service.js';

const SUITE = 'app source end to end';
const { ready, skip, pgUrl, brokers } = await kafkaSuite(SUITE, 6);

/** The first record a source reads waits for its consumer group's join: a few seconds. */
const FIRST_RECORD_MS = 30_000;

/**
 * Kafka records through the real service into the real inbox: attributes and headers (UTF-8
 * text, `base64:` for other bytes, the last of a repeated name), one row for a record read twice,
 * the Kafka attribute chain of spec §7.2 (header, path, then the record key, then the body's
 * digest), dead rows for a value that is not JSON (a tombstone included) and a transform
 * rejection, and a database outage (the service reaches PostgreSQL through a fault proxy) during
 * which nothing is committed, stored once it is back. "Committed" is read from the consumer
 * group: no record of the topic past its committed offset.
 */
describe.skipIf(!ready)(skipTitle('a Kafka source into the inbox', skip), () => {
  let db: FreshDatabase;
  let kit: KafkaKit;
  let dbProxy: FaultProxy;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let orders: string;
  let strict: string;
  let ordersGroup: string;
  let strictGroup: string;
  const inbox = inboxRows(() => db);

  beforeAll(async () => {
    db = await createFreshDatabase(pgUrl, 'qb_kafka_source');
    kit = await createKafkaKit(brokers, 'qb-ksource-e2e');
    // A source subscribes only to topics that exist (QueueBox never creates them).
    orders = await kit.topic(kit.name('orders'), 2);
    strict = await kit.topic(kit.name('strict'));
    ordersGroup = kit.name('queuebox-orders');
    strictGroup = kit.name('queuebox-strict');
    dbProxy = await startFaultProxy({ target: { host: db.host, port: db.port } });
    service = await startTestService(
      { jdbcUrl: `jdbc:postgresql://${dbProxy.host}:${dbProxy.port}/${db.name}`, user: db.user },
      `
database:
  migrate: true
  connectionTimeoutMs: 2000
inbox:
  relay:
    enabled: false
sources:
  orders:
    type: kafka
    bootstrapServers: ${brokers}
    topics: [${orders}]
    groupId: ${ordersGroup}
    aggregateIdPath: $.order
    eventTypePath: $.type
  strict:
    type: kafka
    bootstrapServers: ${brokers}
    topics: [${strict}]
    groupId: ${strictGroup}
    transform:
      expression: 'type = "bad" ? $error("refused") : {"wrapped": $}'
      onError: Dead
`,
    );
  });
  afterAll(async () => {
    await service?.stop();
    await dbProxy?.close();
    await kit?.cleanup();
    await db?.drop();
  });

  const rowByKey = (source: string, key: string) => inbox.rowByKey(source, key, FIRST_RECORD_MS);
  const committed = (group: string, topic: string) =>
    eventually(async () => (await kit.lag(group, topic)) === 0, FIRST_RECORD_MS);

  it('stores a record with its attributes and headers, lists its health, and commits it', async () => {
    await kit.produce(orders, {
      key: 'record-key-7',
      value: '{"id": 12345678901234567890, "order": 7, "type": "order.paid"}',
      headers: {
        'x-tenant': 't1',
        'X-Correlation-Id': 'corr-header',
        'x-binary': Buffer.from([0xff, 0xfe, 0xfd]),
        'x-repeated': ['first', 'last'],
      },
    });
    // The path wins over the record key for both the idempotency key and the aggregate id.
    const row = await rowByKey('orders', '12345678901234567890');
    expect(row).toMatchObject({
      aggregate_id: '7',
      event_type: 'order.paid',
      correlation_id: 'corr-header',
      state: 'pending',
      headers: {
        'x-tenant': 't1',
        'X-Correlation-Id': 'corr-header',
        'x-binary': 'base64://79',
        'x-repeated': 'last',
      },
    });
    const [text] = await db.sql<{ text: string }[]>`
      SELECT payload::text AS text FROM inbox WHERE id = ${row.id}`;
    expect(text!.text).toBe('{"id": 12345678901234567890, "type": "order.paid", "order": 7}');
    await committed(ordersGroup, orders);
    const components = await readyComponents(service.base);
    expect(Object.keys(components)).toEqual([
      'database',
      'outbox-poller',
      'kafka.orders',
      'kafka.strict',
    ]);
    expect(components['kafka.orders']).toEqual({ status: 'up' });
  });

  it('stores a record read twice once, and commits both', async () => {
    const value = '{"id": "twice-1", "order": 1}';
    await kit.produce(orders, { value });
    await kit.produce(orders, { value });
    await rowByKey('orders', 'twice-1');
    await committed(ordersGroup, orders);
    expect(
      (await inbox.rows('orders')).filter((r) => r.idempotency_key === 'twice-1'),
    ).toHaveLength(1);
  });

  it('takes the key from the header, the path, then the record key, then the digest, and the aggregate id from the record key last', async () => {
    await kit.produce(orders, {
      key: 'rk-1',
      value: '{"id": "path-1"}',
      headers: { 'x-idempotency-key': 'header-1' },
    });
    await kit.produce(orders, { key: 'rk-2', value: '{"id": "path-2", "order": 2}' });
    await kit.produce(orders, { key: 'rk-3', value: '{"no-id": 3}' });
    await kit.produce(orders, {
      key: 'rk-4',
      value: '{"no-id": 4}',
      headers: { 'x-aggregate-id': 'aggregate-header-4' },
    });
    await kit.produce(orders, { key: '   ', value: '{"no-id": 5}' });
    await kit.produce(orders, { value: '{"no-id": 6}' });
    expect(await rowByKey('orders', 'header-1')).toMatchObject({ aggregate_id: 'rk-1' });
    expect(await rowByKey('orders', 'path-2')).toMatchObject({ aggregate_id: '2' });
    expect(await rowByKey('orders', 'rk-3')).toMatchObject({ aggregate_id: 'rk-3' });
    expect(await rowByKey('orders', 'rk-4')).toMatchObject({ aggregate_id: 'aggregate-header-4' });
    expect(await rowByKey('orders', digest('{"no-id": 5}'))).toMatchObject({ aggregate_id: null });
    expect(await rowByKey('orders', digest('{"no-id": 6}'))).toMatchObject({ aggregate_id: null });
    await committed(ordersGroup, orders);
  });

  it('stores a value that is not JSON and a tombstone as dead rows under their digest, and commits them', async () => {
    await kit.produce(orders, { key: 'rk-text', value: 'plain text, not JSON' });
    await kit.produce(orders, { key: 'rk-tombstone', value: null });
    expect(await rowByKey('orders', digest('plain text, not JSON'))).toMatchObject({
      state: 'dead',
      payload: { raw: 'plain text, not JSON' },
    });
    expect(await rowByKey('orders', digest(''))).toMatchObject({
      state: 'dead',
      payload: { raw: '' },
    });
    await committed(ordersGroup, orders);
  });

  it('stores the transform result, and a rejected record as a dead row with its original value', async () => {
    await kit.produce(strict, { value: '{"id": "good", "type": "ok"}' });
    await kit.produce(strict, { value: '{"id": "bad", "type": "bad"}' });
    expect(await rowByKey('strict', 'good')).toMatchObject({
      state: 'pending',
      payload: { wrapped: { id: 'good', type: 'ok' } },
    });
    expect(await rowByKey('strict', 'bad')).toMatchObject({
      state: 'dead',
      payload: { id: 'bad', type: 'bad' },
    });
    await committed(strictGroup, strict);
  });

  it('commits nothing while the database is gone and stores every record once it is back', async () => {
    const outage = `SELECT count(*)::int AS n FROM inbox WHERE idempotency_key LIKE 'outage-%'`;
    dbProxy.refuse();
    dbProxy.cut();
    try {
      for (let i = 0; i < 20; i++)
        await kit.produce(orders, {
          key: `outage-key-${i}`,
          value: JSON.stringify({ id: `outage-${i}` }),
        });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await count(db, outage)).toBe(0);
      // The source read them, failed to store the first of each partition and sought back to it.
      expect(await kit.lag(ordersGroup, orders)).toBe(20);
    } finally {
      dbProxy.restore();
    }
    await eventually(async () => (await count(db, outage)) === 20, 30_000);
    expect(
      await count(
        db,
        `SELECT count(DISTINCT idempotency_key)::int AS n FROM inbox WHERE idempotency_key LIKE 'outage-%'`,
      ),
    ).toBe(20);
    await committed(ordersGroup, orders);
  }, 60_000);
});
