/**
 * The connection to a real broker cut in the middle of a batch: the broker has appended the
 * batch's records, its ack is held back by the fault proxy, and the proxy resets the connection
 * (and refuses new ones for a while). Refused for a moment, the batch is carried over the cut by
 * kafkajs's own retry on a new connection, and the broker recognizes its producer id and sequence:
 * no copy. Refused past the rows' budget, they fail, the stuck producer is replaced, and the rows
 * are published again as the poller does: copies, each from a publish reported failed (at least
 * once). Either way none is lost. Runs wherever a Kafka answers.
 */
import { randomUUID } from 'node:crypto';
import { silentLogger, type PublishOutcome } from '@queuebox/core';
import {
  brokerAddress,
  createKafkaKit,
  outboxMessage,
  requireService,
  startFaultProxy,
  viaProxy,
} from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { createKafkaPublisher } from '../src/index.js';
import { destinations, kafkaDestination, publishRequest } from './publish-requests.js';

const SUITE = 'kafka: a publish whose connection is cut mid-batch (2 tests)';
const kafka = await requireService('kafka', SUITE);
const brokers = kafka.available ? kafka.url : '';

async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!kafka.available)(SUITE, () => {
  const cutMidBatch = async (timeoutMs: number, refuseMs: number, failures: boolean) => {
    const kit = await createKafkaKit(brokers, 'qb-cut');
    const topic = await kit.topic(kit.name('out'), 2);
    const proxy = await startFaultProxy({ target: brokerAddress(brokers) });
    const publisher = createKafkaPublisher(
      destinations({ k: kafkaDestination({ bootstrapServers: brokers, topic, timeoutMs }) }),
      { logger: silentLogger },
      { socketFactory: viaProxy(proxy) },
    );
    const read = kit.collect(topic);
    const idOf = (headers: [string, string][]) => headers.find(([n]) => n === 'x-message-id')?.[1];
    const publish = (id: string, n: number) =>
      publisher.publish(
        publishRequest('k', topic, null, outboxMessage({ id, key: `k-${n % 8}`, topic: 'cut' })),
      );
    try {
      // Connected first: the held acks below must not hold the producer's own handshake.
      expect(await publish(randomUUID(), 0)).toEqual({ ok: true });
      await eventually(() => read.records.length === 1, 'the first record');
      proxy.setLatency({ toClient: 30_000 });

      const ids: string[] = Array.from({ length: 300 }, () => randomUUID());
      const outcomes = new Map<string, PublishOutcome>();
      const first = ids.map((id, n) =>
        publish(id, n).then((outcome) => void outcomes.set(id, outcome)),
      );
      // The broker has the batch (read directly, past the proxy); its ack is still held back.
      await eventually(() => read.records.length > 1, 'the batch on the broker');
      if (!failures) expect(outcomes.size).toBe(0);
      proxy.refuse();
      proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, refuseMs));
      proxy.setLatency(0);
      proxy.restore();
      await Promise.all(first);

      // The poller's retry path, for every row reported failed.
      let failed = 0;
      for (let round = 0; round < 20; round++) {
        const again = ids.filter((id) => !outcomes.get(id)?.ok);
        if (again.length === 0) break;
        failed += again.length;
        await Promise.all(
          again.map((id) =>
            publish(id, ids.indexOf(id)).then((outcome) => void outcomes.set(id, outcome)),
          ),
        );
      }
      expect(ids.every((id) => outcomes.get(id)?.ok)).toBe(true);

      const arrived = () => new Set(read.records.map((r) => idOf(r.headers)));
      await eventually(() => ids.every((id) => arrived().has(id)), 'every row on the topic');
      const copies = read.records.filter((r) => ids.includes(idOf(r.headers) ?? ''));
      const duplicates = copies.length - ids.length;
      console.info(
        `Kafka connection cut mid-batch: ${ids.length} rows, ${copies.length} records, ${duplicates} duplicate(s), ${failed} publish(es) failed and retried`,
      );
      expect(duplicates).toBeGreaterThanOrEqual(0);
      expect(duplicates).toBeLessThanOrEqual(failed);
      if (failures) expect(failed).toBeGreaterThan(0);
      expect(proxy.stats().cut).toBeGreaterThan(0);
    } finally {
      await publisher.close();
      await proxy.close();
      await kit.cleanup();
    }
  };

  it(
    'carries a batch cut before its ack over a short refusal: no row lost, no copy unaccounted',
    () => cutMidBatch(10_000, 1_000, false),
    180_000,
  );

  it(
    "fails a batch cut past its rows' budget and sends it again: no row lost, copies counted",
    () => cutMidBatch(3_000, 5_000, true),
    180_000,
  );
});
