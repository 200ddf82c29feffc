import { createRabbitKit, type QueueCollector, type RabbitKit } from '@queuebox/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { ORDER_KEYS, outboxE2E, REFERENCE_TEXT, ROWS_PER_KEY } from './outbox-e2e-harness.js';
import { eventually } from './service.js';

const { ready, pgUrl, url, target } = await e2eServices(
  'app: outbox to RabbitMQ end to end',
  'rabbitmq',
);

/**
 * The outbox through the real service to the real broker: a row reaches a bound queue with every
 * reference header; unroutable, nacked and unconfirmed publishes are retried and then dead; the
 * rows of one key arrive in order with 8 publishes in flight and failures in between; a webhook
 * relayed to RabbitMQ carries `x-inbox-id` and `x-source`.
 */
describe.skipIf(!ready)('outbox delivery to RabbitMQ', () => {
  let kit: RabbitKit;
  let events: QueueCollector;
  let slowQueue: QueueCollector;
  let ordered: QueueCollector;
  let orderedQueue: string;
  let exchange: string;
  let orderedExchange: string;

  const {
    expectDead,
    sendReferenceRow,
    expectDeadWhileLate,
    postHook,
    seedOrdered,
    orderedSent,
    expectKeyOrder,
    db,
  } = outboxE2E({
    pgUrl,
    database: 'qb_rabbit_outbox',
    target,
    async open(toBroker) {
      kit = await createRabbitKit(url, 'qb-outbox-e2e');
      const slowUrl = new URL(url);
      slowUrl.hostname = toBroker.host;
      slowUrl.port = String(toBroker.port);
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
      slowQueue = await kit.collect(
        await kit.queue(kit.name('slow.q'), { exchange: slow, patterns: ['#'] }),
      );
      return {
        destinations: `
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
    exchange: ${slow}`,
        routes: `
  - topicPattern: "order.*"
    destination: events
  - topicPattern: "lost.*"
    destination: events
  - topicPattern: "full.*"
    destination: full
  - topicPattern: "seq.*"
    destination: ordered`,
        cleanup: () => kit.cleanup(),
      };
    },
  });
  // The warm row reached its queue: the slow destination's connection is open.
  beforeAll(() => slowQueue.waitFor(1));

  it('delivers a row to a bound queue with every reference header and the stored text', async () => {
    const id = await sendReferenceRow();
    const received = await eventually(() =>
      events.messages.find((m) => m.properties.messageId === id),
    );
    const [stored] = await db().sql.unsafe<{ text: string }[]>(
      'SELECT payload::text AS text FROM outbox WHERE id = $1',
      [id],
    );
    expect(received.text).toBe(stored!.text);
    expect(received.text).toBe(REFERENCE_TEXT);
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
    await expectDead(
      'lost.parcel',
      { n: 1 },
      { attempts: 2 },
      (id) => `Message ${id} is unroutable on exchange ${exchange} with routing key lost.parcel`,
    );
  });

  it('retries a row the broker nacks and marks it dead', async () => {
    await expectDead(
      'full.box',
      { n: 1 },
      { attempts: 1 },
      (id) => `Publish not confirmed: the broker nacked message ${id}`,
    );
  });

  it('retries a row the broker does not confirm within 5000 ms and marks it dead', async () => {
    await expectDeadWhileLate(
      7_000,
      { attempts: 1, timeoutMs: 25_000 },
      () => 'Publish not confirmed',
    );
  }, 40_000);

  it('keeps each key in order with 8 publishes in flight and failing publishes in between', async () => {
    // Two rows of each key are unroutable until `late.#` is bound below; the exchange exists
    // once QueueBox declared it, so the binding waits for the first failures.
    await seedOrdered((key, seq, late) => ({
      exchange: orderedExchange,
      rk: `${late ? 'late' : 'ok'}.${key}`,
      key,
      seq,
    }));
    await kit.queue(orderedQueue, { exchange: orderedExchange, patterns: ['ok.#'] });
    ordered = await kit.collect(orderedQueue);
    // Rows delivered before the queue was bound went nowhere (returned) and are retried too.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await (await kit.channel()).bindQueue(orderedQueue, orderedExchange, 'late.#');
    await orderedSent(30_000);
    const received = await ordered.waitFor(ORDER_KEYS.length * ROWS_PER_KEY);
    expectKeyOrder(
      received.map((m) => ({
        ...(JSON.parse(m.text) as { key: string; seq: number }),
        attempt: m.headers['x-attempt'] as number,
      })),
    );
  }, 60_000);

  it('relays a webhook to RabbitMQ with x-inbox-id and x-source, x-topic being QueueBox’s', async () => {
    const messageId = await postHook(
      { id: 'evt-1', type: 'hook.received' },
      { 'x-topic': 'forged', 'x-tenant': 't9' },
    );
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
