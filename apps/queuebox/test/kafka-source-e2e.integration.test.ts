import { createKafkaKit, type KafkaKit } from '@queuebox/testing';
import { skipTitle } from '@queuebox/testing/contracts';
import { expect, it } from 'vitest';
import { digest } from './e2e-rows.js';
import { kafkaSuite } from './kafka-e2e.js';
import { eventually } from './service.js';
import { sourceE2ESuite, type SourceChannel } from './source-e2e-suite.js';

const SUITE = 'app source end to end';
const { ready, skip, pgUrl, brokers } = await kafkaSuite(SUITE, 7);

/** The first record a source reads waits for its consumer group's join: a few seconds. */
const FIRST_RECORD_MS = 30_000;

let kit: KafkaKit;
const topics = {} as Record<SourceChannel, string>;
const groups = {} as Record<SourceChannel, string>;

/**
 * Kafka: a topic per source (`orders` of two partitions), headers as UTF-8 text, `base64:` for
 * other bytes and the last of a repeated name; the attribute chain of spec §7.2 (header, path,
 * then the record key, then the body's digest); a tombstone is a dead row. "Settled" is read from
 * the consumer group: no record of the topic past its committed offset. While the database is
 * gone the source stores the first of each partition in vain and seeks back to it.
 */
sourceE2ESuite({
  kind: 'kafka',
  title: skipTitle('a Kafka source into the inbox', skip),
  ready,
  pgUrl,
  database: 'qb_kafka_source',
  firstMessageMs: FIRST_RECORD_MS,
  outageTestMs: 60_000,
  async open() {
    kit = await createKafkaKit(brokers, 'qb-ksource-e2e');
    // A source subscribes only to topics that exist (QueueBox never creates them).
    topics.orders = await kit.topic(kit.name('orders'), 2);
    topics.strict = await kit.topic(kit.name('strict'));
    groups.orders = kit.name('queuebox-orders');
    groups.strict = kit.name('queuebox-strict');
    return {
      yaml: (channel) =>
        [
          `    type: kafka`,
          `    bootstrapServers: ${brokers}`,
          `    topics: [${topics[channel]}]`,
          `    groupId: ${groups[channel]}`,
        ].join('\n'),
      send: (channel, value, options) =>
        kit.produce(
          topics[channel],
          options?.key === undefined ? { value } : { value, key: options.key },
        ),
      outstanding: (channel) => kit.lag(groups[channel], topics[channel]),
      settled: (channel) =>
        eventually(
          async () => (await kit.lag(groups[channel], topics[channel])) === 0,
          FIRST_RECORD_MS,
        ),
      cleanup: () => kit.cleanup(),
    };
  },
  attributes: {
    title: 'stores a record with its attributes and headers, lists its health, and commits it',
    send: () =>
      kit.produce(topics.orders, {
        key: 'record-key-7',
        value: '{"id": 12345678901234567890, "order": 7, "type": "order.paid"}',
        headers: {
          'x-tenant': 't1',
          'X-Correlation-Id': 'corr-header',
          'x-binary': Buffer.from([0xff, 0xfe, 0xfd]),
          'x-repeated': ['first', 'last'],
        },
      }),
    row: {
      correlation_id: 'corr-header',
      headers: {
        'x-tenant': 't1',
        'X-Correlation-Id': 'corr-header',
        'x-binary': 'base64://79',
        'x-repeated': 'last',
      },
    },
  },
  ownTests: (env) => {
    it('takes the key from the header, the path, then the record key, then the digest, and the aggregate id from the record key last', async () => {
      const { scratch, rowByKey } = env();
      await kit.produce(topics.orders, {
        key: 'rk-1',
        value: '{"id": "path-1"}',
        headers: { 'x-idempotency-key': 'header-1' },
      });
      await kit.produce(topics.orders, { key: 'rk-2', value: '{"id": "path-2", "order": 2}' });
      await kit.produce(topics.orders, { key: 'rk-3', value: '{"no-id": 3}' });
      await kit.produce(topics.orders, {
        key: 'rk-4',
        value: '{"no-id": 4}',
        headers: { 'x-aggregate-id': 'aggregate-header-4' },
      });
      await kit.produce(topics.orders, { key: '   ', value: '{"no-id": 5}' });
      await kit.produce(topics.orders, { value: '{"no-id": 6}' });
      expect(await rowByKey('orders', 'header-1')).toMatchObject({ aggregate_id: 'rk-1' });
      expect(await rowByKey('orders', 'path-2')).toMatchObject({ aggregate_id: '2' });
      expect(await rowByKey('orders', 'rk-3')).toMatchObject({ aggregate_id: 'rk-3' });
      expect(await rowByKey('orders', 'rk-4')).toMatchObject({
        aggregate_id: 'aggregate-header-4',
      });
      expect(await rowByKey('orders', digest('{"no-id": 5}'))).toMatchObject({
        aggregate_id: null,
      });
      expect(await rowByKey('orders', digest('{"no-id": 6}'))).toMatchObject({
        aggregate_id: null,
      });
      await scratch.settled('orders');
    });

    it('stores a tombstone as a dead row under the digest of nothing, and commits it', async () => {
      const { scratch, rowByKey } = env();
      await scratch.send('orders', null, { key: 'rk-tombstone' });
      expect(await rowByKey('orders', digest(''))).toMatchObject({
        state: 'dead',
        payload: { raw: '' },
      });
      await scratch.settled('orders');
    });
  },
});
