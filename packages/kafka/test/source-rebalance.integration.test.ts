/**
 * Two replicas of one Kafka source in one consumer group on a real broker: the second one
 * joining takes partitions from the first, and when one vanishes without leaving the group (its
 * connection cut for good, as a SIGKILLed process leaves it) the other takes its partitions once
 * the group session (10 s) expires, and consumes everything published meanwhile. Nothing is
 * lost, and the group commits past every record. Runs wherever a Kafka answers.
 */
import { silentLogger, type DeliveryHandler } from '@queuebox/core';
import {
  brokerAddress,
  createKafkaKit,
  kafkaSource,
  requireService,
  startFaultProxy,
  viaProxy,
  type FaultProxy,
} from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { KafkaSourceConsumer } from '../src/index.js';

const SUITE = 'kafka: a source group rebalancing on a real broker (1 test)';
const kafka = await requireService('kafka', SUITE);
const brokers = kafka.available ? kafka.url : '';

async function eventually(check: () => Promise<boolean> | boolean, what: string, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!kafka.available)(SUITE, () => {
  it('shares the partitions with a replica that joins, and takes over those of one that vanished', async () => {
    const kit = await createKafkaKit(brokers, 'qb-rebalance');
    const topic = await kit.topic(kit.name('in'), 4);
    const groupId = kit.name('group');
    const seen = { a: new Set<string>(), b: new Set<string>() };
    const proxies: FaultProxy[] = [];
    const consumers: KafkaSourceConsumer[] = [];
    const replica = async (name: 'a' | 'b') => {
      const proxy = await startFaultProxy({ target: brokerAddress(brokers) });
      proxies.push(proxy);
      const handler: DeliveryHandler = {
        handle: (delivery) => {
          seen[name].add(Buffer.from(delivery.body).toString('utf8'));
          return Promise.resolve({ settle: 'ack', outcome: 'stored' });
        },
      };
      const consumer = new KafkaSourceConsumer(
        name,
        kafkaSource({ bootstrapServers: brokers, topics: [topic], groupId, maxPollRecords: 10 }),
        { handler, logger: silentLogger },
        { socketFactory: viaProxy(proxy) },
      );
      consumers.push(consumer);
      await consumer.start();
      return { consumer, proxy };
    };
    const publish = async (from: number, count: number) => {
      for (let i = from; i < from + count; i++) {
        await kit.produce(topic, { key: `k${i}`, value: `{"n":${i}}` });
      }
    };
    const all = () => new Set([...seen.a, ...seen.b]);
    try {
      const a = await replica('a');
      await publish(0, 20);
      await eventually(() => seen.a.size === 20, 'replica a consumes alone');

      const b = await replica('b');
      await eventually(() => a.consumer.isHealthy() && b.consumer.isHealthy(), 'both in the group');
      await publish(20, 40);
      await eventually(() => all().size === 60, 'every record after the join');
      expect(seen.b.size).toBeGreaterThan(0);
      expect([...seen.b].every((body) => Number(JSON.parse(body).n) >= 20)).toBe(true);

      // b vanishes without leaving the group: its partitions stand still until its session ends.
      b.proxy.refuse();
      b.proxy.cut();
      const before = seen.b.size;
      await publish(60, 40);
      // Within the 10 s session and a margin; kafkajs's default 30 s session would not make it.
      await eventually(() => all().size === 100, 'every record after b vanished', 25_000);
      expect(seen.b.size).toBe(before);
      await eventually(async () => (await kit.lag(groupId, topic)) === 0, 'the group committed');
    } finally {
      for (const consumer of consumers) await consumer.close();
      for (const proxy of proxies) await proxy.close();
      await kit.cleanup();
    }
  }, 240_000);
});
