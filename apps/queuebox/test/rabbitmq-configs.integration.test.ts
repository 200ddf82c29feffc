import { createRabbitKit, freePort } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { docsYaml, readRepo } from './repo-files.js';
import { testScratch } from './scratch.js';
import { openDatabase, openService } from './scratch-opens.js';
import { eventually } from './service.js';

const SUITE = 'app: the RabbitMQ configurations of the docs and the reference';
const { ready, pgUrl, url } = await e2eServices(SUITE, 'rabbitmq');

/**
 * The configuration docs/rabbitmq.md gives (the file compose's `rabbitmq` profile mounts) and the
 * reference's `rabbitmq-bridge.yml` each deliver end to end against the real broker and database.
 */
describe.skipIf(!ready)(SUITE, () => {
  const scratch = testScratch();

  it('the docs configuration is the compose file, and moves a message from a queue to an exchange', async () => {
    const yaml = docsYaml('docs/rabbitmq.md');
    expect(yaml).toBe(readRepo('docker/queuebox-rabbitmq.yml'));
    const db = await openDatabase(scratch, pgUrl, 'qb_rabbit_docs');
    const kit = await scratch.open(createRabbitKit(url, 'qb-docs'), (k) => k.cleanup());
    const exchange = await kit.exchange(kit.name('orders'));
    const collector = await kit.collect(
      await kit.queue(kit.name('orders-all'), { exchange, patterns: ['#'] }),
    );
    const payments = kit.name('payments');
    kit.adopt('queue', payments);
    // Only the placeholders' variables: the broker, the exchange and queue names of this run.
    await openService(scratch, db, yaml, {
      RABBITMQ_URL: url,
      ORDERS_EXCHANGE: exchange,
      PAYMENTS_QUEUE: payments,
    });
    const body = '{"id": "pay-1", "orderId": "o-7", "type": "payment.captured"}';
    await kit.sendToQueue(payments, body);
    const [received] = await collector.waitFor(1);
    // jsonb's own text of the stored body: the same JSON, keys in jsonb's order.
    expect(JSON.parse(received!.text)).toEqual(JSON.parse(body));
    expect(received!.routingKey).toBe('payment.captured');
    expect(received!.headers).toMatchObject({
      'x-source': 'payments',
      'x-idempotency-key': 'pay-1',
      'x-topic': 'payment.captured',
      'X-Origin': 'queuebox',
    });
    const [row] = await db.sql<{ aggregate_id: string; state: string }[]>`
      SELECT aggregate_id, state FROM inbox WHERE idempotency_key = 'pay-1'`;
    expect(row).toEqual({ aggregate_id: 'o-7', state: 'processed' });
  });

  it('rabbitmq-bridge.yml delivers a webhook to its exchange with only the broker host, the HTTP port and the database changed', async () => {
    const reference = readRepo('packages/config/testdata/reference-configs/rabbitmq-bridge.yml');
    const broker = new URL(url);
    const port = await freePort();
    const yaml = reference
      .replace('amqp://guest:guest@rabbitmq:5672', `amqp://guest:guest@${broker.host}`)
      .replace('httpPort: 8080', `httpPort: ${port}`);
    expect(yaml).not.toBe(reference);
    expect(yaml.split('\n').filter((line, i) => line !== reference.split('\n')[i])).toHaveLength(2);
    const db = await openDatabase(scratch, pgUrl, 'qb_rabbit_bridge');
    const kit = await scratch.open(createRabbitKit(url, 'qb-bridge'), (k) => k.cleanup());
    // The reference's compose bound a queue to the exchange; this run binds one of its own.
    const exchange = await kit.exchange('queuebox-events');
    const collector = await kit.collect(
      await kit.queue(kit.name('events'), { exchange, patterns: ['#'] }),
    );
    // The database comes from QUEUEBOX_DATABASE_* (the file has no URL); the port is the file's.
    await openService(scratch, db, yaml, { QUEUEBOX_SERVER_HTTPPORT: String(port) });
    const response = await fetch(`http://127.0.0.1:${port}/inbox/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id": "evt_1", "type": "payment.succeeded", "amount": 1999}',
    });
    expect(response.status).toBe(202);
    const [received] = await collector.waitFor(1);
    expect(received!.exchange).toBe('queuebox-events');
    expect(received!.routingKey).toBe('payment.succeeded');
    expect(JSON.parse(received!.text)).toEqual({
      id: 'evt_1',
      type: 'payment.succeeded',
      amount: 1999,
    });
    expect(received!.headers).toMatchObject({
      'x-source': 'stripe',
      'x-topic': 'payment.succeeded',
    });
    await eventually(async () => {
      const [row] = await db.sql<{ state: string }[]>`SELECT state FROM outbox`;
      return row?.state === 'sent';
    });
    // Shared name: deleted only when no other binding uses it (the kit removed this run's queue).
    await kit.cleanup();
    await (
      await (await createRabbitKit(url, 'qb-bridge-cleanup')).channel()
    )
      .deleteExchange('queuebox-events', { ifUnused: true })
      .catch(() => undefined);
  });
});
