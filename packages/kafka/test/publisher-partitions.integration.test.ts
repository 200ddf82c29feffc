/**
 * A keyed record lands on the partition the Java client's default partitioner picks
 * (`toPositive(murmur2(keyBytes)) % partitions`), so a Java or librdkafka consumer (with its
 * murmur2 partitioner) sees each key of a QueueBox topic on the one partition it expects. The
 * expected partitions below were computed with `org.apache.kafka.common.utils.Utils.murmur2` of
 * kafka-clients 4.4.0 for a topic of six partitions. Unkeyed records published together share
 * one partition (the Java client's sticky partitioner) and, over many requests, spread over all.
 * Runs wherever a Kafka answers.
 */
import { outboxMessage, requireService, createKafkaKit } from '@queuebox/testing';
import { JsonPayload } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { publisherAt, publishRequest } from './publish-requests.js';

const SUITE = 'kafka: keyed records on the Java client partition (2 tests)';
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

/** 4 KiB: the sticky partition moves on every 4 records, so 300 of them visit every partition. */
const BIG = JsonPayload.fromValue({ filler: 'x'.repeat(4096) });

describe.skipIf(!kafka.available)(SUITE, () => {
  it('puts every key on the partition the Java client computes with murmur2', async () => {
    const brokers = kafka.available ? kafka.url : '';
    const kit = await createKafkaKit(brokers, 'qb-partitions');
    const publisher = publisherAt(brokers);
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

  it('sends the unkeyed rows of one request to one partition, and spreads requests over all', async () => {
    const brokers = kafka.available ? kafka.url : '';
    const kit = await createKafkaKit(brokers, 'qb-sticky');
    const publisher = publisherAt(brokers);
    try {
      const topic = await kit.topic(kit.name('unkeyed'), 6);
      // Published in one tick: one request of 8 records.
      const together = await Promise.all(
        Array.from({ length: 8 }, () =>
          publisher.publish(publishRequest('k', topic, null, outboxMessage({ key: null }))),
        ),
      );
      expect(together.every((outcome) => outcome.ok)).toBe(true);
      // Then one request at a time: the sticky partition moves on every 16 KiB.
      for (let i = 0; i < 300; i++) {
        const outcome = await publisher.publish(
          publishRequest('k', topic, null, outboxMessage({ key: null, payload: BIG })),
        );
        expect(outcome.ok).toBe(true);
      }
      const { records } = kit.collect(topic);
      const deadline = Date.now() + 30_000;
      while (records.length < 308 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(records).toHaveLength(308);
      const first = records.filter((record) => record.value.length < 100);
      expect(new Set(first.map((record) => record.partition)).size).toBe(1);
      expect(new Set(records.map((record) => record.partition))).toEqual(
        new Set([0, 1, 2, 3, 4, 5]),
      );
    } finally {
      await publisher.close();
      await kit.cleanup();
    }
  }, 60_000);
});
