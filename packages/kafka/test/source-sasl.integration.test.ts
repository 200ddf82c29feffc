/**
 * The source side of an authorization refusal on a real broker: the local 4.x broker's
 * SASL_PLAINTEXT listener (QUEUEBOX_TEST_KAFKA_SASL_BROKERS) with an ACL that lets only bob read
 * the test's topic. alice's source neither hangs nor consumes: its start returns, it logs why it
 * cannot consume, naming the refusal and the topic, stays `down`, and closes within a bound; bob's
 * source on the same listener consumes the topic. Skipped (with the reason) where no such
 * listener is given, and a failure where QUEUEBOX_TEST_REQUIRE names kafka.
 */
import { Secret, type DeliveryHandler } from '@queuebox/core';
import { createKafkaKit, kafkaSource, recordingLogger } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { KafkaSourceConsumer } from '../src/index.js';
import { onlyBob, saslListener } from './sasl-listener.js';

const SUITE = 'kafka: a source refused by an ACL (1 test)';
const { ready, brokers, saslBrokers } = await saslListener(SUITE);

async function eventually(check: () => boolean, what: string, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!ready)(SUITE, () => {
  it('reports a topic the ACL keeps from the user, without hanging, and consumes as the user it lets in', async () => {
    const kit = await createKafkaKit(brokers, 'qb-src-sasl');
    const topic = await kit.topic(kit.name('guarded'));
    await kit.produce(topic, { key: 'k-1', value: '{"id":"m-1"}' });
    const acl = await onlyBob(brokers, topic, 'READ');
    const seen: string[] = [];
    const handler: DeliveryHandler = {
      handle: (delivery) => {
        seen.push(Buffer.from(delivery.body).toString('utf8'));
        return Promise.resolve({ settle: 'ack', outcome: 'stored' });
      },
    };
    const source = (user: string) =>
      kafkaSource({
        bootstrapServers: saslBrokers,
        topics: [topic],
        groupId: kit.name(`group-${user}`),
        securityProtocol: 'SASL_PLAINTEXT',
        saslMechanism: 'PLAIN',
        saslUsername: user,
        saslPassword: new Secret(`${user}-secret`),
      });
    const aliceLog = recordingLogger();
    const alice = new KafkaSourceConsumer('guarded', source('alice'), {
      handler,
      logger: aliceLog,
    });
    const bob = new KafkaSourceConsumer('guarded', source('bob'), {
      handler,
      logger: recordingLogger(),
    });
    try {
      // The ACL reaches the authorizer through the metadata log: bob consumes once it has.
      await bob.start();
      await eventually(() => seen.length === 1, "bob's source consumes the record");
      await bob.close();

      const started = performance.now();
      await alice.start();
      expect(performance.now() - started).toBeLessThan(30_000);
      const refusal = () =>
        aliceLog.lines.find(
          (line) => line.level === 'warn' && line.message.includes('TOPIC_AUTHORIZATION_FAILED'),
        );
      await eventually(() => refusal() !== undefined, "alice's source reports the refusal", 30_000);
      expect(refusal()!.message).toBe(
        `Source 'guarded' is not authorized to read topic '${topic}' as user 'alice' (TOPIC_AUTHORIZATION_FAILED): the broker's ACLs must allow READ and DESCRIBE on it. It tries again in the background.`,
      );
      expect(alice.isHealthy()).toBe(false);
      expect(seen).toHaveLength(1);
      const closing = performance.now();
      await alice.close();
      expect(performance.now() - closing).toBeLessThan(10_000);
    } finally {
      await alice.close();
      await bob.close();
      await acl.remove();
      await kit.cleanup();
    }
  }, 120_000);
});
