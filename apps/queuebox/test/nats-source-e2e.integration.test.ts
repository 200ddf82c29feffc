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
import { digest, inboxRows, readyComponents } from './e2e-rows.js';
import { eventually, startTestService } from './service.js';

const SUITE = 'app: a NATS JetStream source into the inbox';
const pg = await requireService('postgres', SUITE);
const nats = await requireService('nats', SUITE);
const ready = pg.available && nats.available;

/**
 * JetStream messages through the real service into the real inbox: attributes and headers, one
 * row for a message delivered twice, the `Nats-Msg-Id` and digest fallbacks, dead rows (then
 * acks) for a body that is not JSON and a transform rejection, and a database outage (the service
 * reaches PostgreSQL through a fault proxy) that naks and stores later. "Acked" is read from the
 * durable consumer: nothing pending, nothing awaiting an ack.
 */
describe.skipIf(!ready)(SUITE, () => {
  let db: FreshDatabase;
  let kit: NatsKit;
  let dbProxy: FaultProxy;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let orders: string;
  let strict: string;

  const { rows, rowByKey } = inboxRows(() => db);

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '', 'qb_nats_source');
    const url = nats.available ? nats.url : '';
    kit = createNatsKit(url, 'qb-nsource-e2e');
    orders = await kit.stream(kit.name('ORDERS'), [kit.subject('orders.>')]);
    strict = await kit.stream(kit.name('STRICT'), [kit.subject('strict.>')]);
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
    type: nats
    servers: ${url}
    stream: ${orders}
    durable: queuebox-orders
    aggregateIdPath: $.order
    eventTypePath: $.type
  strict:
    type: nats
    servers: ${url}
    stream: ${strict}
    durable: queuebox-strict
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

  const acked = (stream: string, durable: string) =>
    eventually(async () => (await kit.outstanding(stream, durable)) === 0);
  const send = (subject: string, body: string, options?: Parameters<NatsKit['publish']>[2]) =>
    kit.publish(kit.subject(subject), body, options);

  it('stores a message with its attributes and headers, lists its health, and acks it', async () => {
    await send('orders.paid', '{"id": 12345678901234567890, "order": 7, "type": "order.paid"}', {
      headers: { 'x-tenant': 't1', 'X-Correlation-Id': 'corr-header' },
    });
    const row = await rowByKey('orders', '12345678901234567890');
    expect(row).toMatchObject({
      aggregate_id: '7',
      event_type: 'order.paid',
      correlation_id: 'corr-header',
      state: 'pending',
      headers: { 'x-tenant': 't1', 'X-Correlation-Id': 'corr-header' },
    });
    await acked(orders, 'queuebox-orders');
    const components = await readyComponents(service.base);
    expect(Object.keys(components)).toEqual([
      'database',
      'outbox-poller',
      'nats.orders',
      'nats.strict',
    ]);
    expect(components['nats.orders']).toEqual({ status: 'up' });
  });

  it('stores a message delivered twice once, and acks both', async () => {
    const body = '{"id": "twice-1", "order": 1}';
    await send('orders.x', body);
    await send('orders.x', body);
    await rowByKey('orders', 'twice-1');
    await acked(orders, 'queuebox-orders');
    expect((await rows('orders')).filter((r) => r.idempotency_key === 'twice-1')).toHaveLength(1);
  });

  it('falls back to Nats-Msg-Id, then to the body digest, for the key', async () => {
    await send('orders.x', '{"no-id": 1}', { msgId: 'nats-id-1' });
    await send('orders.x', '{"no-id": 2}');
    await rowByKey('orders', 'nats-id-1');
    await rowByKey('orders', digest('{"no-id": 2}'));
    await acked(orders, 'queuebox-orders');
  });

  it('stores a body that is not JSON and a transform rejection as dead rows, and acks them', async () => {
    await send('orders.x', 'plain text, not JSON');
    await send('strict.x', '{"id": "good", "type": "ok"}');
    await send('strict.x', '{"id": "bad", "type": "bad"}');
    expect(await rowByKey('orders', digest('plain text, not JSON'))).toMatchObject({
      state: 'dead',
      payload: { raw: 'plain text, not JSON' },
    });
    expect(await rowByKey('strict', 'good')).toMatchObject({
      state: 'pending',
      payload: { wrapped: { id: 'good', type: 'ok' } },
    });
    expect(await rowByKey('strict', 'bad')).toMatchObject({
      state: 'dead',
      payload: { id: 'bad', type: 'bad' },
    });
    await acked(orders, 'queuebox-orders');
    await acked(strict, 'queuebox-strict');
  });

  it('naks while the database is gone and stores every message once it is back', async () => {
    dbProxy.refuse();
    dbProxy.cut();
    for (let i = 0; i < 20; i++) await send('orders.outage', JSON.stringify({ id: `outage-${i}` }));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const [during] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM inbox WHERE idempotency_key LIKE 'outage-%'`;
    expect(during!.n).toBe(0);
    expect(await kit.outstanding(orders, 'queuebox-orders')).toBe(20);
    dbProxy.restore();
    await eventually(async () => {
      const [after] = await db.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM inbox WHERE idempotency_key LIKE 'outage-%'`;
      return after!.n === 20;
    }, 30_000);
    await acked(orders, 'queuebox-orders');
  }, 45_000);
});
