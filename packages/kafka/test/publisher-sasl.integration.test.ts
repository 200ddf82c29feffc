/**
 * Authentication and authorization refusals of a real broker: the local 4.x broker's
 * SASL_PLAINTEXT listener (QUEUEBOX_TEST_KAFKA_SASL_BROKERS, printed by `pnpm kafka:start`) with
 * the PLAIN users alice and bob, and an ACL that lets only bob write to the test's topic. A
 * wrong password and a refused topic each fail the publish at once with the broker's reason,
 * and an authorized user's publish on the same listener goes through. Skipped (with the reason)
 * where no such listener is given, and a failure where QUEUEBOX_TEST_REQUIRE names kafka.
 */
import { Secret, silentLogger, type KafkaDestinationConfig } from '@queuebox/core';
import { createKafkaKit } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { createKafkaPublisher } from '../src/index.js';
import { destinations, kafkaDestination, publishRequest } from './publish-requests.js';
import { onlyBob, saslListener } from './sasl-listener.js';

const SUITE = 'kafka: SASL/PLAIN and ACL refusals (2 tests)';
const { ready, brokers, saslBrokers } = await saslListener(SUITE);

function publisherAs(username: string, password: string, topic: string) {
  const config: KafkaDestinationConfig = kafkaDestination({
    bootstrapServers: saslBrokers,
    topic,
    timeoutMs: 10_000,
    securityProtocol: 'SASL_PLAINTEXT',
    saslMechanism: 'PLAIN',
    saslUsername: username,
    saslPassword: new Secret(password),
  });
  return createKafkaPublisher(destinations({ k: config }), { logger: silentLogger });
}

describe.skipIf(!ready)(SUITE, () => {
  it('fails a publish with a wrong password at once, with the reason', async () => {
    const publisher = publisherAs('alice', 'not-her-password', 'unused');
    try {
      const started = performance.now();
      const outcome = await publisher.publish(publishRequest('k', 'unused', null));
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(outcome).toMatchObject({ ok: false });
      if (!outcome.ok)
        expect(outcome.error.message).toMatch(
          /^Publish failed: .*SASL PLAIN authentication failed/,
        );
    } finally {
      await publisher.close();
    }
  }, 30_000);

  it("refuses a user the topic's ACL leaves out, naming the topic, and takes the one it lets in", async () => {
    const kit = await createKafkaKit(brokers, 'qb-sasl');
    const topic = await kit.topic(kit.name('guarded'));
    const acl = await onlyBob(brokers, topic, 'WRITE');
    const alice = publisherAs('alice', 'alice-secret', topic);
    const bob = publisherAs('bob', 'bob-secret', topic);
    try {
      // The ACL reaches the authorizer through the metadata log: bob is let in once it has.
      let allowed = await bob.publish(publishRequest('k', topic, null));
      for (let i = 0; !allowed.ok && i < 20; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        allowed = await bob.publish(publishRequest('k', topic, null));
      }
      expect(allowed).toEqual({ ok: true });
      const refused = await alice.publish(publishRequest('k', topic, null));
      expect(refused).toMatchObject({ ok: false });
      if (!refused.ok) {
        expect(refused.error.message).toMatch(/\(TOPIC_AUTHORIZATION_FAILED\) on topic '/);
        expect(refused.error.message.endsWith(`on topic '${topic}'`)).toBe(true);
      }
    } finally {
      await alice.close();
      await bob.close();
      await acl.remove();
      await kit.cleanup();
    }
  }, 60_000);
});
