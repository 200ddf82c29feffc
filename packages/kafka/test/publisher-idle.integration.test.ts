/**
 * A connected publisher with nothing to send arms no timers. kafkajs 2.2.4 re-armed a timer of
 * `throttledUntil - now` (negative, so Node fires it after 1 ms, and Node 24 prints a
 * TimeoutNegativeWarning) after every response, whose callback armed the next: each broker
 * connection ran a 1 ms timer loop for the rest of its life, about 27 ms of CPU a second per
 * connection on an idle service. QueueBox's kafkajs patch stops the loop when no request waits.
 * Runs wherever a Kafka answers.
 */
import { createHook } from 'node:async_hooks';
import { outboxMessage, requireService, createKafkaKit } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { publisherAt, publishRequest } from './publish-requests.js';

const SUITE = 'kafka: an idle publisher arms no timers (1 test)';
const kafka = await requireService('kafka', SUITE);

/** Timers created in this thread while `ms` pass. */
async function timersCreatedWithin(ms: number): Promise<number> {
  let created = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'Timeout') created++;
    },
  });
  // The wait's own timer is made before the hook counts.
  const waited = new Promise((resolve) => setTimeout(resolve, ms));
  hook.enable();
  try {
    await waited;
  } finally {
    hook.disable();
  }
  return created;
}

describe.skipIf(!kafka.available)(SUITE, () => {
  it('publishes, then waits without a timer loop on its connections', async () => {
    const brokers = kafka.available ? kafka.url : '';
    const kit = await createKafkaKit(brokers, 'qb-idle');
    const publisher = publisherAt(brokers);
    try {
      const topic = await kit.topic(kit.name('idle'), 1);
      for (let i = 0; i < 3; i++) {
        const outcome = await publisher.publish(
          publishRequest('k', topic, null, outboxMessage({ key: null })),
        );
        expect(outcome).toEqual({ ok: true });
      }
      // With the loop, about one timer per millisecond per connection (the bootstrap's and the
      // partition leader's); without it, none: the row's budget timer ended with its ack.
      expect(await timersCreatedWithin(500)).toBeLessThan(10);
    } finally {
      await publisher.close();
      await kit.cleanup();
    }
  }, 60_000);
});
