import { readFileSync } from 'node:fs';
import { loadConfig } from '@queuebox/config';
import { JsonPayload, silentLogger, type SourceDelivery } from '@queuebox/core';
import { createKafkaPublisher, KafkaSourceConsumer } from '@queuebox/kafka';
import { createKafkaKit, kafkaDestination, outboxMessage, rabbitSource } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { docsYaml, readRepo, repoPath } from './repo-files.js';
import { testScratch } from './scratch.js';
import { openDatabase, openService } from './scratch-opens.js';
import { eventually } from './service.js';
import { brokerConfigs } from '../src/providers.js';

const SUITE = 'kafka: app docs configuration end to end (1 test)';

/** These need no broker: the docs page, the compose file and the reference stay one. */
describe('the Kafka configurations of the docs and the reference', () => {
  it('the docs configuration is the compose file and loads with its defaults', () => {
    const yaml = docsYaml('docs/kafka.md');
    expect(yaml).toBe(readRepo('docker/queuebox-kafka.yml'));
    const config = loadConfig({
      brokers: brokerConfigs,
      env: {},
      demoConfigYaml: yaml,
      readFile: () => undefined,
    });
    expect(config.sources.payments).toMatchObject({
      type: 'kafka',
      topics: ['payments'],
      groupId: 'queuebox-payments',
      autoOffsetReset: 'earliest',
      maxPollRecords: 100,
    });
    expect(config.destinations['orders-topic']).toMatchObject({
      type: 'kafka',
      topic: 'orders',
      timeoutMs: 30_000,
      securityProtocol: 'PLAINTEXT',
    });
  });

  it('kafka-bridge.yml loads unchanged', () => {
    const config = loadConfig({
      brokers: brokerConfigs,
      env: {
        QUEUEBOX_CONFIG_FILE: repoPath(
          'packages/config/testdata/reference-configs/kafka-bridge.yml',
        ),
      },
      readFile: (path) => readFileSync(path, 'utf8'),
    });
    expect(config.sources.orders).toMatchObject({ type: 'kafka', groupId: 'queuebox-orders' });
    expect(config.destinations.processed).toMatchObject({
      type: 'kafka',
      topic: 'orders-processed',
    });
  });
});

const { ready, pgUrl, url: brokers } = await e2eServices(SUITE, 'kafka');

/**
 * The docs configuration moves a record from the `payments` topic to the `orders` topic through
 * the inbox, the relay and the outbox, against a real broker and database. The test's own
 * producer and reader are QueueBox's Kafka publisher and source; the test kit only creates and
 * deletes the two topics.
 */
describe.skipIf(!ready)(SUITE, () => {
  // Last opened, first closed: the kit deletes the topics once nothing reads them.
  const scratch = testScratch();

  it('moves a record from the payments topic to the orders topic', async () => {
    const run = `${Date.now()}`;
    // Both topics exist before QueueBox starts, as on a cluster that creates no topic on demand
    // (the local brokers run with auto.create.topics.enable=false).
    const kit = await scratch.open(createKafkaKit(brokers, 'qb-docs'), (k) => k.cleanup());
    const payments = await kit.topic(`qb-docs.${run}.payments`);
    const orders = await kit.topic(`qb-docs.${run}.orders`);
    const publisher = createKafkaPublisher(
      {
        destinations: {
          seed: kafkaDestination({ bootstrapServers: brokers, topic: payments }),
        },
      },
      { logger: silentLogger },
    );
    scratch.defer(() => publisher.close());
    const body = '{"id": "pay-1", "orderId": "o-7", "type": "payment.captured"}';
    const seed = outboxMessage({ key: 'o-7', payload: JsonPayload.fromText(body) });
    const seeded = await publisher.publish({
      message: seed,
      destination: 'seed',
      payload: seed.payload,
      routingKey: null,
      address: payments,
      signal: new AbortController().signal,
    });
    expect(seeded).toEqual({ ok: true });

    const db = await openDatabase(scratch, pgUrl, 'qb_kafka_docs');
    await openService(scratch, db, docsYaml('docs/kafka.md'), {
      KAFKA_BROKERS: brokers,
      PAYMENTS_TOPIC: payments,
      PAYMENTS_GROUP: `qb-docs.${run}.group`,
      ORDERS_TOPIC: orders,
    });

    const received: SourceDelivery[] = [];
    const {
      type: _type,
      queueName: _q,
      connectionUrl: _c,
      prefetchCount: _p,
      declareQueue: _d,
      ...shared
    } = rabbitSource();
    const reader = new KafkaSourceConsumer(
      'reader',
      {
        ...shared,
        type: 'kafka',
        bootstrapServers: brokers,
        topics: [orders],
        groupId: `qb-docs.${run}.reader`,
        autoOffsetReset: 'earliest',
        maxPollRecords: 10,
        securityProtocol: 'PLAINTEXT',
        saslMechanism: null,
        saslUsername: null,
        saslPassword: null,
      },
      {
        handler: {
          handle: (delivery) => {
            received.push(delivery);
            return Promise.resolve({ settle: 'ack', outcome: 'stored' });
          },
        },
        logger: silentLogger,
      },
    );
    scratch.defer(() => reader.close());
    await reader.start();
    const delivery = await eventually(
      () => received.find((d) => d.headers['x-topic'] === 'payment.captured'),
      30_000,
    );
    expect(JSON.parse(Buffer.from(delivery.body).toString('utf8'))).toEqual(JSON.parse(body));
    expect(delivery.headers).toMatchObject({
      'X-Origin': 'queuebox',
      'x-topic': 'payment.captured',
    });
    const [row] = await db.sql<{ aggregate_id: string; state: string }[]>`
      SELECT aggregate_id, state FROM inbox WHERE idempotency_key = 'pay-1'`;
    expect(row).toEqual({ aggregate_id: 'o-7', state: 'processed' });
  }, 90_000);
});
