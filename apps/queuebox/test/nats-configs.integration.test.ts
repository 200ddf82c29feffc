import { createNatsKit, freePort } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { docsYaml, readRepo } from './repo-files.js';
import { testScratch } from './scratch.js';
import { openDatabase, openService } from './scratch-opens.js';
import { eventually } from './service.js';

const SUITE = 'app: the NATS configurations of the docs and the reference';
const { ready, pgUrl, url } = await e2eServices(SUITE, 'nats');

/** Marks the fixed-name streams this file creates, so a leftover of a killed run can go. */
const MARK = 'created by the nats-bridge.yml test of QueueBox';

/**
 * The configuration docs/nats.md gives (the file compose's `nats` profile mounts) and the
 * reference's `nats-bridge.yml` each deliver end to end against the real server and database.
 */
describe.skipIf(!ready)(SUITE, () => {
  const scratch = testScratch();

  it('the docs configuration is the compose file, and moves a message from a stream to a stream', async () => {
    const yaml = docsYaml('docs/nats.md');
    expect(yaml).toBe(readRepo('docker/queuebox-nats.yml'));
    const db = await openDatabase(scratch, pgUrl, 'qb_nats_docs');
    const kit = await scratch.open(createNatsKit(url, 'qb-ndocs'), (k) => k.cleanup());
    const payments = await kit.stream(kit.name('PAYMENTS'), [kit.subject('payments.>')]);
    const orders = await kit.stream(kit.name('ORDERS'), [kit.subject('orders.>')]);
    // Only the placeholders' variables: the server, the stream and subject of this run.
    await openService(scratch, db, yaml, {
      NATS_URL: url,
      PAYMENTS_STREAM: payments,
      ORDERS_SUBJECT: kit.subject('orders'),
    });
    const body = '{"id": "pay-1", "orderId": "o-7", "type": "payment.captured"}';
    await kit.publish(kit.subject('payments.captured'), body);
    const [received] = await eventually(async () => {
      const stored = await kit.messages(orders);
      return stored.length > 0 && stored;
    });
    expect(JSON.parse(received!.text)).toEqual(JSON.parse(body));
    expect(received!.subject).toBe(`${kit.subject('orders')}.payment.captured`);
    expect(received!.headers).toMatchObject({
      'x-source': ['payments'],
      'x-idempotency-key': ['pay-1'],
      'x-topic': ['payment.captured'],
      'X-Origin': ['queuebox'],
    });
    await eventually(async () => {
      const [row] = await db.sql<{ state: string }[]>`
        SELECT state FROM inbox WHERE idempotency_key = 'pay-1'`;
      return row?.state === 'processed';
    });
    expect(await kit.outstanding(payments, 'queuebox-payments')).toBe(0);
  });

  it('nats-bridge.yml moves a message from ORDERS to processed.orders with only the server, the HTTP port and the database changed', async () => {
    const reference = readRepo('packages/config/testdata/reference-configs/nats-bridge.yml');
    const db = await openDatabase(scratch, pgUrl, 'qb_nats_bridge');
    const port = await freePort();
    const yaml = reference
      .replaceAll('nats://nats:4222', url)
      .replace('jdbc:postgresql://postgres:5432/queuebox', db.jdbcUrl)
      .replace('username: queuebox', `username: ${db.user}`)
      .replace('database:\n', `server:\n  httpPort: ${port}\n\ndatabase:\n`);
    const changed = yaml.split('\n').filter((line) => !reference.split('\n').includes(line));
    expect(changed).toEqual(
      [
        'server:',
        `  httpPort: ${port}`,
        '',
        `  url: ${db.jdbcUrl}`,
        `  username: ${db.user}`,
        `    servers: ${url}`,
        `    servers: ${url}`,
      ].filter((line) => line !== ''),
    );
    const kit = await scratch.open(createNatsKit(url, 'qb-nbridge'), (k) => k.cleanup());
    const manager = await kit.manager();
    // Fixed names on a shared server: a leftover of a killed run of this test goes first.
    for (const name of ['ORDERS', 'QB_BRIDGE_PROCESSED']) {
      const existing = await manager.streams.info(name).catch(() => null);
      if (existing === null) continue;
      if (existing.config.description !== MARK) {
        throw new Error(`A stream ${name} that this test did not create exists on ${url}.`);
      }
      await manager.streams.delete(name);
    }
    await kit.stream('ORDERS', ['orders.>'], { description: MARK });
    await kit.stream('QB_BRIDGE_PROCESSED', ['processed.orders'], { description: MARK });
    const service = await openService(scratch, db, yaml, {
      QUEUEBOX_SERVER_HTTPPORT: String(port),
    });
    expect(service.dataPort).toBe(port);
    await kit.publish('orders.created', '{"id": "o-1", "type": "order.created", "total": 5}');
    const [received] = await eventually(async () => {
      const stored = await kit.messages('QB_BRIDGE_PROCESSED');
      return stored.length > 0 && stored;
    });
    expect(received!.subject).toBe('processed.orders');
    expect(JSON.parse(received!.text)).toEqual({ id: 'o-1', type: 'order.created', total: 5 });
    expect(received!.headers).toMatchObject({
      'x-source': ['orders'],
      'x-idempotency-key': ['o-1'],
      'x-topic': ['orders'],
    });
    await eventually(async () => {
      const [row] = await db.sql<{ state: string }[]>`SELECT state FROM outbox`;
      return row?.state === 'sent';
    });
    const health = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(health.status).toBe(200);
    expect(await kit.outstanding('ORDERS', 'queuebox-orders')).toBe(0);
  });
});
