/**
 * What a real broker refuses, sent in one batch with rows it takes: a topic it does not have
 * (the local brokers never create topics on demand) and a record over the topic's
 * `max.message.bytes`. Each refused row fails on its own with the broker's reason, within its
 * budget, and the rows beside it are delivered. Runs wherever a Kafka answers.
 */
import { silentLogger } from '@queuebox/core';
import { createKafkaKit, outboxMessage, requireService } from '@queuebox/testing';
import { JsonPayload } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { createKafkaPublisher } from '../src/index.js';
import { destinations, kafkaDestination, publishRequest } from './publish-requests.js';

const SUITE = 'kafka: refusals of a real broker (2 tests)';
const kafka = await requireService('kafka', SUITE);
const brokers = kafka.available ? kafka.url : '';
const TIMEOUT_MS = 10_000;

async function withPublisher(
  run: (
    kit: Awaited<ReturnType<typeof createKafkaKit>>,
    publisher: ReturnType<typeof createKafkaPublisher>,
  ) => Promise<void>,
): Promise<void> {
  const kit = await createKafkaKit(brokers, 'qb-refusals');
  const publisher = createKafkaPublisher(
    destinations({
      k: kafkaDestination({ bootstrapServers: brokers, topic: 'unused', timeoutMs: TIMEOUT_MS }),
    }),
    { logger: silentLogger },
  );
  try {
    await run(kit, publisher);
  } finally {
    await publisher.close();
    await kit.cleanup();
  }
}

async function until<T>(read: () => T | undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('not within the deadline');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!kafka.available)(SUITE, () => {
  it('fails a row for a missing topic naming it, and delivers the row beside it', async () => {
    await withPublisher(async (kit, publisher) => {
      const present = await kit.topic(kit.name('present'));
      const missing = kit.name('missing');
      const kept = outboxMessage();
      const started = performance.now();
      const [refused, delivered] = await Promise.all([
        publisher.publish(publishRequest('k', missing, null)),
        publisher.publish(publishRequest('k', present, null, kept)),
      ]);
      expect(performance.now() - started).toBeLessThan(TIMEOUT_MS);
      expect(refused).toEqual({
        ok: false,
        error: expect.objectContaining({
          message: `Publish failed: This server does not host this topic-partition (UNKNOWN_TOPIC_OR_PARTITION) on topic '${missing}'`,
          retryable: true,
        }) as unknown,
      });
      expect(delivered).toEqual({ ok: true });
      const { records } = kit.collect(present);
      const record = await until(() => records[0]);
      expect(record.headers).toContainEqual(['x-message-id', kept.id]);
    });
  }, 60_000);

  it('fails a record over max.message.bytes with the reason, and delivers the one beside it', async () => {
    await withPublisher(async (kit, publisher) => {
      const topic = await kit.topic(kit.name('small'), 1, { 'max.message.bytes': '4096' });
      const big = outboxMessage({
        payload: JsonPayload.fromText(JSON.stringify({ pad: 'x'.repeat(8_192) })),
      });
      const small = outboxMessage();
      const [refused, delivered] = await Promise.all([
        publisher.publish(publishRequest('k', topic, null, big)),
        publisher.publish(publishRequest('k', topic, null, small)),
      ]);
      expect(refused).toEqual({
        ok: false,
        error: expect.objectContaining({
          message:
            'Publish failed: The request included a message larger than the max message size the server will accept (MESSAGE_TOO_LARGE)',
          code: 'publish_failed',
          // The record itself is refused: sent again as it is, it fails the same way.
          retryable: false,
        }) as unknown,
      });
      expect(delivered).toEqual({ ok: true });
      const { records } = kit.collect(topic);
      await until(() => records[0]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(records.map((r) => r.headers.find(([name]) => name === 'x-message-id')?.[1])).toEqual([
        small.id,
      ]);
    });
  }, 60_000);
});
