import {
  createFreshDatabase,
  createRabbitKit,
  requireService,
  startFaultProxy,
  type FaultProxy,
  type FreshDatabase,
  type RabbitKit,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest, inboxRows, readyComponents } from './e2e-rows.js';
import { eventually, startTestService } from './service.js';

const SUITE = 'app: a RabbitMQ source into the inbox';
const pg = await requireService('postgres', SUITE);
const rabbit = await requireService('rabbitmq', SUITE);
const ready = pg.available && rabbit.available;

/**
 * RabbitMQ messages through the real service into the real inbox: attributes and headers as the
 * spec converts them, one row for a message delivered twice, dead rows (then acks) for a body
 * that is not JSON, one that cannot be stored and a transform rejection, and a database outage
 * (the service reaches PostgreSQL through a fault proxy) that requeues and stores later.
 */
describe.skipIf(!ready)(SUITE, () => {
  let db: FreshDatabase;
  let kit: RabbitKit;
  let dbProxy: FaultProxy;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let orders: string;
  let strict: string;

  const { rows, rowByKey } = inboxRows(() => db);

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '', 'qb_rabbit_source');
    const url = rabbit.available ? rabbit.url : '';
    kit = await createRabbitKit(url, 'qb-source-e2e');
    orders = await kit.queue(kit.name('orders'));
    strict = await kit.queue(kit.name('strict'));
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
    type: rabbitmq
    queueName: ${orders}
    connectionUrl: ${url}
    prefetchCount: 10
    aggregateIdPath: $.order
    eventTypePath: $.type
  strict:
    type: rabbitmq
    queueName: ${strict}
    connectionUrl: ${url}
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

  const drained = (queue: string) => eventually(async () => (await kit.messageCount(queue)) === 0);

  it('stores a message with its attributes and converted headers, lists its health, and acks it', async () => {
    await kit.sendToQueue(
      orders,
      '{"id": 12345678901234567890, "order": 7, "type": "order.paid"}',
      {
        correlationId: 'corr-property',
        headers: {
          'x-tenant': 't1',
          'x-count': 3,
          'x-flag': true,
          'x-none': null,
          'x-table': { a: 1 },
        },
      },
    );
    const row = await rowByKey('orders', '12345678901234567890');
    expect(row).toMatchObject({
      aggregate_id: '7',
      event_type: 'order.paid',
      correlation_id: 'corr-property',
      state: 'pending',
      headers: { 'x-tenant': 't1', 'x-count': '3', 'x-flag': 'true', 'x-table': '{"a":1}' },
    });
    const [text] = await db.sql<
      { text: string }[]
    >`SELECT payload::text AS text FROM inbox WHERE id = ${row.id}`;
    expect(text!.text).toBe('{"id": 12345678901234567890, "type": "order.paid", "order": 7}');
    await drained(orders);
    const components = await readyComponents(service.base);
    expect(Object.keys(components)).toEqual([
      'database',
      'outbox-poller',
      'rabbitmq.orders',
      'rabbitmq.strict',
    ]);
    expect(components['rabbitmq.orders']).toEqual({ status: 'up' });
  });

  it('stores a message delivered twice once, and acks both', async () => {
    const body = '{"id": "twice-1", "order": 1}';
    await kit.sendToQueue(orders, body);
    await kit.sendToQueue(orders, body);
    await rowByKey('orders', 'twice-1');
    await drained(orders);
    expect((await rows('orders')).filter((r) => r.idempotency_key === 'twice-1')).toHaveLength(1);
  });

  it('falls back to the message id, then to the body digest, for the key', async () => {
    await kit.sendToQueue(orders, '{"no-id": 1}', { messageId: 'amqp-id-1' });
    await kit.sendToQueue(orders, '{"no-id": 2}');
    await rowByKey('orders', 'amqp-id-1');
    await rowByKey('orders', digest('{"no-id": 2}'));
    await drained(orders);
  });

  it('stores a body that is not JSON and a message that cannot be stored as dead rows, and acks them', async () => {
    await kit.sendToQueue(orders, 'plain text, not JSON');
    await kit.sendToQueue(orders, '{"id": "nul", "note": "a\\u0000b"}');
    await kit.sendToQueue(orders, JSON.stringify({ id: 'k'.repeat(300) }));
    const text = await rowByKey('orders', digest('plain text, not JSON'));
    expect(text).toMatchObject({ state: 'dead', payload: { raw: 'plain text, not JSON' } });
    const nul = await rowByKey('orders', digest('{"id": "nul", "note": "a\\u0000b"}'));
    expect(nul).toMatchObject({
      state: 'dead',
      payload: { raw: '{"id": "nul", "note": "a\\u0000b"}' },
    });
    const long = await rowByKey('orders', digest(JSON.stringify({ id: 'k'.repeat(300) })));
    expect(long).toMatchObject({ state: 'dead', payload: { id: 'k'.repeat(300) } });
    await drained(orders);
  });

  it('stores the transform result, and a rejected message as a dead row with its original body', async () => {
    await kit.sendToQueue(strict, '{"id": "good", "type": "ok"}');
    await kit.sendToQueue(strict, '{"id": "bad", "type": "bad"}');
    expect(await rowByKey('strict', 'good')).toMatchObject({
      state: 'pending',
      payload: { wrapped: { id: 'good', type: 'ok' } },
    });
    expect(await rowByKey('strict', 'bad')).toMatchObject({
      state: 'dead',
      payload: { id: 'bad', type: 'bad' },
    });
    await drained(strict);
  });

  it('requeues while the database is gone and stores every message once it is back', async () => {
    dbProxy.refuse();
    dbProxy.cut();
    for (let i = 0; i < 20; i++)
      await kit.sendToQueue(orders, JSON.stringify({ id: `outage-${i}` }));
    // Not acked while nothing can be stored: the broker keeps them (unacked or requeued).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const [during] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM inbox WHERE idempotency_key LIKE 'outage-%'`;
    expect(during!.n).toBe(0);
    dbProxy.restore();
    await eventually(async () => {
      const [after] = await db.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM inbox WHERE idempotency_key LIKE 'outage-%'`;
      return after!.n === 20;
    }, 30_000);
    await drained(orders);
  }, 45_000);
});
