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
import { outboxRows } from './e2e-rows.js';
import { eventually, startTestService } from './service.js';

const pg = await requireService('postgres', 'app: outbox to RabbitMQ end to end');
const rabbit = await requireService('rabbitmq', 'app: outbox to RabbitMQ end to end');
const ready = pg.available && rabbit.available;

/**
 * The outbox through the real service to the real broker: a row reaches a bound queue with every
 * reference header; unroutable, nacked and unconfirmed publishes are retried and then dead; the
 * rows of one key arrive in order with 8 publishes in flight and failures in between; a webhook
 * relayed to RabbitMQ carries `x-inbox-id` and `x-source`.
 */
describe.skipIf(!ready)('outbox delivery to RabbitMQ', () => {
  let db: FreshDatabase;
  let kit: RabbitKit;
  let proxy: FaultProxy;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let events: QueueCollector;
  let ordered: QueueCollector;
  let orderedQueue: string;
  let exchange: string;
  let orderedExchange: string;

  const { insert, row, dead } = outboxRows(() => db);

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '');
    const url = rabbit.available ? rabbit.url : '';
    kit = await createRabbitKit(url, 'qb-outbox-e2e');
    const broker = new URL(url);
    proxy = await startFaultProxy({
      target: { host: broker.hostname, port: Number(broker.port || 5672) },
    });
    const slowUrl = new URL(url);
    slowUrl.hostname = proxy.host;
    slowUrl.port = String(proxy.port);

    exchange = await kit.exchange(kit.name('events'));
    events = await kit.collect(
      await kit.queue(kit.name('events.q'), { exchange, patterns: ['order.#', 'hook.#'] }),
    );
    const full = await kit.exchange(kit.name('full'));
    await kit.queue(
      kit.name('full.q'),
      { exchange: full, patterns: ['#'] },
      { arguments: { 'x-max-length': 0, 'x-overflow': 'reject-publish' } },
    );
    orderedExchange = kit.name('ordered');
    // Declared by QueueBox's first publish; the kit deletes it after.
    kit.adopt('exchange', orderedExchange);
    orderedQueue = kit.name('ordered.q');
    const slow = await kit.exchange(kit.name('slow'));
    const slowQueue = await kit.collect(
      await kit.queue(kit.name('slow.q'), { exchange: slow, patterns: ['#'] }),
    );

    service = await startTestService(
      db,
      `
database:
  migrate: true
outbox:
  retryBaseDelayMs: 50
  pollIntervalMs: 50
inbox:
  relay:
    enabled: true
    pollIntervalMs: 50
destinations:
  events:
    type: rabbitmq
    url: ${url}
    exchange: ${exchange}
    headers:
      X-Static: static
  full:
    type: rabbitmq
    url: ${url}
    exchange: ${full}
  ordered:
    type: rabbitmq
    url: ${url}
    exchange: "{{ payload.exchange }}"
    routingKeyTemplate: "{{ payload.rk }}"
  slow:
    type: rabbitmq
    url: ${slowUrl.toString()}
    exchange: ${slow}
routes:
  - topicPattern: "order.*"
    destination: events
  - topicPattern: "lost.*"
    destination: events
  - topicPattern: "hook.*"
    destination: events
  - topicPattern: "full.*"
    destination: full
  - topicPattern: "seq.*"
    destination: ordered
  - topicPattern: "slow.*"
    destination: slow
sources:
  hooks:
    path: /hooks
    idempotencyKeyPath: $.id
    eventTypePath: $.type
`,
    );
    // The slow destination's connection is open (a delivered row) before its answers slow down.
    const [warm] = await insert('slow.warm', { warm: true });
    await eventually(async () => (await row(warm!.id)).state === 'sent');
    await slowQueue.waitFor(1);
  });
  afterAll(async () => {
    await service?.stop();
    await proxy?.close();
    await kit?.cleanup();
    await db?.drop();
  });

  it('delivers a row to a bound queue with every reference header and the stored text', async () => {
    const text = '{"id": 12345678901234567890, "amount": 1.50}';
    const [inserted] = await insert('order.created', text, {
      key: 'order-42',
      headers: { 'X-Correlation-Id': 'corr-1', 'X-Static': 'row-wins', 'X-Tenant': 't1' },
    });
    const id = inserted!.id;
    await eventually(async () => (await row(id)).state === 'sent');
    const received = await eventually(() =>
      events.messages.find((m) => m.properties.messageId === id),
    );
    const [stored] = await db.sql.unsafe<{ text: string }[]>(
      'SELECT payload::text AS text FROM outbox WHERE id = $1',
      [id],
    );
    expect(received.text).toBe(stored!.text);
    expect(received.text).toBe('{"id": 12345678901234567890, "amount": 1.50}');
    expect(received.exchange).toBe(exchange);
    expect(received.routingKey).toBe('order.created');
    expect(received.properties.contentType).toBe('application/json');
    expect(received.properties.deliveryMode).toBe(2);
    expect(received.headers).toEqual({
      'x-topic': 'order.created',
      'x-attempt': 0,
      'X-Static': 'row-wins',
      'X-Correlation-Id': 'corr-1',
      'X-Tenant': 't1',
    });
  });

  it('retries an unroutable row and marks it dead with the reference text', async () => {
    const [inserted] = await insert('lost.parcel', { n: 1 }, { maxAttempts: 2 });
    const id = inserted!.id;
    const final = await dead(id);
    expect(final.attempt).toBe(2);
    expect(final.last_error).toBe(
      `Message ${id} is unroutable on exchange ${exchange} with routing key lost.parcel`,
    );
  });

  it('retries a row the broker nacks and marks it dead', async () => {
    const [inserted] = await insert('full.box', { n: 1 }, { maxAttempts: 1 });
    const id = inserted!.id;
    const final = await dead(id);
    expect(final.attempt).toBe(1);
    expect(final.last_error).toBe(`Publish not confirmed: the broker nacked message ${id}`);
  });

  it('retries a row the broker does not confirm within 5000 ms and marks it dead', async () => {
    proxy.setLatency({ toClient: 7_000 });
    try {
      const [inserted] = await insert('slow.row', { n: 1 }, { maxAttempts: 1 });
      const id = inserted!.id;
      const final = await dead(id, 25_000);
      expect(final.attempt).toBe(1);
      expect(final.last_error).toBe('Publish not confirmed');
    } finally {
      proxy.setLatency(0);
    }
  }, 40_000);

  it('keeps each key in order with 8 publishes in flight and failing publishes in between', async () => {
    const keys = Array.from({ length: 8 }, (_, k) => `key-${k}`);
    const perKey = 12;
    await db.sql.begin(async (tx) => {
      for (let seq = 0; seq < perKey; seq++) {
        for (const key of keys) {
          // Two rows of each key are unroutable until `late.#` is bound below.
          const rk = seq === 3 || seq === 8 ? `late.${key}` : `ok.${key}`;
          await tx.unsafe(
            `INSERT INTO outbox (topic, key, payload, max_attempts) VALUES ('seq.step', $1, $2::text::jsonb, 50)`,
            [key, JSON.stringify({ exchange: orderedExchange, rk, key, seq })],
          );
        }
      }
    });
    // The exchange exists once QueueBox declared it: wait for the first failures to bind.
    await eventually(async () => {
      const [failed] = await db.sql.unsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM outbox WHERE topic = 'seq.step' AND attempt > 0`,
      );
      return failed!.n >= 8;
    });
    await kit.queue(orderedQueue, { exchange: orderedExchange, patterns: ['ok.#'] });
    ordered = await kit.collect(orderedQueue);
    // Rows delivered before the queue was bound went nowhere (returned) and are retried too.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await (await kit.channel()).bindQueue(orderedQueue, orderedExchange, 'late.#');
    await eventually(async () => {
      const [pending] = await db.sql.unsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM outbox WHERE topic = 'seq.step' AND state <> 'sent'`,
      );
      return pending!.n === 0;
    }, 30_000);
    const received = await ordered.waitFor(keys.length * perKey);
    for (const key of keys) {
      const sequence = received
        .map((m) => JSON.parse(m.text) as { key: string; seq: number })
        .filter((m) => m.key === key)
        .map((m) => m.seq);
      expect(sequence, key).toEqual(Array.from({ length: perKey }, (_, i) => i));
    }
    const retried = received.filter((m) => (m.headers['x-attempt'] as number) > 0);
    expect(retried.length).toBeGreaterThanOrEqual(keys.length);
  }, 60_000);

  it('relays a webhook to RabbitMQ with x-inbox-id and x-source, x-topic being QueueBox’s', async () => {
    const response = await fetch(`${service.base}/inbox/hooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-topic': 'forged', 'x-tenant': 't9' },
      body: JSON.stringify({ id: 'evt-1', type: 'hook.received' }),
    });
    expect(response.status).toBe(202);
    const { messageId } = (await response.json()) as { messageId: string };
    const received = await eventually(() =>
      events.messages.find((m) => m.headers['x-inbox-id'] === messageId),
    );
    expect(received.headers).toMatchObject({
      'x-source': 'hooks',
      'x-idempotency-key': 'evt-1',
      'x-topic': 'hook.received',
      'x-attempt': 0,
      'x-tenant': 't9',
    });
    expect(received.routingKey).toBe('hook.received');
    expect(JSON.parse(received.text)).toEqual({ id: 'evt-1', type: 'hook.received' });
  });
});
