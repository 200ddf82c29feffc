import type { DeliveryVerdict } from '@queuebox/core';
import {
  brokerAddress,
  createKafkaKit,
  type FaultProxy,
  type FreshDatabase,
  type KafkaKit,
} from '@queuebox/testing';
import { skipTitle } from '@queuebox/testing/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { count } from './e2e-rows.js';
import { kafkaSuite, kafkaThrough, observing } from './kafka-e2e.js';
import { suiteScratch } from './scratch.js';
import { openDatabase, openProxy, type TestService } from './scratch-opens.js';
import { eventually, startTestService } from './service.js';
import { RELAY_OFF } from './yaml-blocks.js';

const SUITE = 'app source killed between store and commit';
const { ready, skip, pgUrl, brokers } = await kafkaSuite(SUITE, 1);

/**
 * A Kafka source whose replica dies after the inbox committed its records and before the offset
 * commit reached the broker: the moment the first record is stored, its connection is cut for
 * good (as a SIGKILLed process leaves it: no offset commit, no LeaveGroup), and the replica is
 * stopped. A new replica of the same group gets the records again from the last committed offset,
 * and the inbox holds each once: the second delivery is a duplicate, and the group commits past
 * it.
 */
describe.skipIf(!ready)(skipTitle('Kafka source killed between store and commit', skip), () => {
  const opened = suiteScratch();
  let db: FreshDatabase;
  let kit: KafkaKit;
  let proxy: FaultProxy;
  let topic: string;
  let group: string;
  /** The replicas still running; a test stops one by taking it off the list. */
  const services: TestService[] = [];

  beforeAll(async () => {
    db = await openDatabase(opened, pgUrl, 'qb_kafka_source_kill');
    kit = await opened.open(createKafkaKit(brokers, 'qb-ksrc-kill'), (k) => k.cleanup());
    topic = await kit.topic(kit.name('in'), 1);
    group = kit.name('queuebox');
    proxy = await openProxy(opened, brokerAddress(brokers));
    opened.defer(async () => {
      for (const service of services) await service.stop();
    });
  });

  const yaml = () => `
database:
  migrate: true
${RELAY_OFF}
sources:
  orders:
    type: kafka
    bootstrapServers: ${brokers}
    topics: [${topic}]
    groupId: ${group}
    idempotencyKeyPath: $.id
`;
  const stored = (key: string) =>
    count(db, `SELECT count(*)::int AS n FROM inbox WHERE idempotency_key = '${key}'`);

  it('delivers the stored but uncommitted records to the next replica, and the inbox keeps each once', async () => {
    const total = 5;
    for (let i = 0; i < total; i++) {
      await kit.produce(topic, { key: `k-${i}`, value: JSON.stringify({ id: `m-${i}`, n: i }) });
    }
    const first: DeliveryVerdict[] = [];
    const dying = observing((_delivery, verdict) => {
      first.push(verdict);
      // Stored and committed in the inbox; the offset commit that would follow never arrives.
      proxy.refuse();
      proxy.cut();
    });
    services.push(
      await startTestService(
        db,
        yaml(),
        {},
        undefined,
        kafkaThrough({ sources: { orders: proxy }, handlers: { orders: dying } }),
      ),
    );
    await eventually(() => first.length > 0, 60_000);
    expect(first[0]).toEqual({ settle: 'ack', outcome: 'stored' });
    // Stopping lets the records already in hand finish; their offsets cannot be committed.
    await services.shift()!.stop();
    const storedFirst = await count(db, 'SELECT count(*)::int AS n FROM inbox');
    expect(storedFirst).toBeGreaterThan(0);
    expect(storedFirst).toBe(first.length);
    // Nothing was committed: every record is still outstanding for the group.
    expect(await kit.lag(group, topic)).toBe(total);

    const second = new Map<string, DeliveryVerdict>();
    const watching = observing((delivery, verdict) => {
      second.set(Buffer.from(delivery.body).toString('utf8'), verdict);
    });
    services.push(
      await startTestService(
        db,
        yaml(),
        {},
        undefined,
        kafkaThrough({ handlers: { orders: watching } }),
      ),
    );
    // The dead member's session (10 s) ends before the group hands its partition on.
    await eventually(async () => (await kit.lag(group, topic)) === 0, 90_000);
    expect(second.size).toBe(total);
    const duplicates = [...second.values()].filter(
      (verdict) => verdict.settle === 'ack' && verdict.outcome === 'duplicate',
    );
    expect(duplicates).toHaveLength(storedFirst);
    for (let i = 0; i < total; i++) expect(await stored(`m-${i}`)).toBe(1);
    expect(await count(db, 'SELECT count(*)::int AS n FROM inbox')).toBe(total);
  }, 180_000);
});
