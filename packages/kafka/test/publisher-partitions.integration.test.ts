/**
 * A keyed record lands on the partition the Java client's default partitioner picks
 * (`toPositive(murmur2(keyBytes)) % partitions`), so a Java or librdkafka consumer (with its
 * murmur2 partitioner) sees each key of a QueueBox topic on the one partition it expects. The
 * expected partitions below were computed with `org.apache.kafka.common.utils.Utils.murmur2` of
 * kafka-clients 4.4.0 for a topic of six partitions. Runs wherever a Kafka answers.
 */
import { outboxMessage, requireService, createKafkaKit } from '@queuebox/testing';
import { silentLogger } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { createKafkaPublisher } from '../src/index.js';
import { destinations, kafkaDestination, publishRequest } from './publish-requests.js';

const SUITE = 'kafka: keyed records on the Java client partition (1 test)';
const kafka = await requireService('kafka', SUITE);

const JAVA_PARTITION_OF_6: readonly (readonly [string, number])[] = [
  ['order-1', 4],
  ['order-2', 3],
  ['order-3', 3],
  ['customer/42', 1],
  ['ключ-7', 1],
  ['🙂 emoji', 0],
  ['a', 4],
  ['0198c2f4-5d6e-7a8b-9c0d-000000000001', 0],
  ['x'.repeat(300), 4],
];

describe.skipIf(!kafka.available)(SUITE, () => {
  it('puts every key on the partition the Java client computes with murmur2', async () => {
    const brokers = kafka.available ? kafka.url : '';
    const kit = await createKafkaKit(brokers, 'qb-partitions');
    const publisher = createKafkaPublisher(
      destinations({ k: kafkaDestination({ bootstrapServers: brokers, topic: 'unused' }) }),
      { logger: silentLogger },
    );
    try {
      const topic = await kit.topic(kit.name('keyed'), 6);
      const outcomes = await Promise.all(
        JAVA_PARTITION_OF_6.map(([key]) =>
          publisher.publish(publishRequest('k', topic, null, outboxMessage({ key }))),
        ),
      );
      expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
      const { records } = kit.collect(topic);
      const deadline = Date.now() + 30_000;
      while (records.length < JAVA_PARTITION_OF_6.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const seen = new Map(records.map((record) => [record.key, record.partition]));
      expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(JAVA_PARTITION_OF_6));
    } finally {
      await publisher.close();
      await kit.cleanup();
    }
  }, 60_000);
});
