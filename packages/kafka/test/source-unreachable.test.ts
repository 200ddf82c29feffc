import { createServer, type AddressInfo } from 'node:net';
import { Secret, silentLogger, type DeliveryHandler } from '@queuebox/core';
import { kafkaSource, warningLogger } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { KafkaSourceConsumer, provider } from '../src/index.js';

const handler: DeliveryHandler = {
  handle: () => Promise.resolve({ settle: 'ack', outcome: 'stored' }),
};

/** A port nothing listens on: taken, then freed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What the Kafka source does without a broker, which runs here. */
describe('Kafka source consumer without a broker', () => {
  it('is built by the provider without connecting, and closes unstarted (the config check)', async () => {
    const consumer = provider.createSourceConsumer('orders', kafkaSource(), {
      handler,
      logger: silentLogger,
    });
    expect(consumer.healthComponent).toBe('kafka.orders');
    expect(consumer.source).toBe('orders');
    expect(consumer.isHealthy()).toBe(false);
    await consumer.close();
    await consumer.close();
  });

  it('refuses at build a SASL mechanism kafkajs does not speak, naming the key', () => {
    expect(
      () =>
        new KafkaSourceConsumer(
          'orders',
          kafkaSource({
            securityProtocol: 'SASL_SSL',
            saslMechanism: 'GSSAPI',
            saslUsername: 'u',
            saslPassword: new Secret('p'),
          }),
          { handler, logger: silentLogger },
        ),
    ).toThrow("sources.orders.saslMechanism: QueueBox's Kafka client speaks PLAIN");
  });

  it('starts while the broker is unreachable, reports down, keeps trying, and closes within a bound', async () => {
    const port = await closedPort();
    const { logger, lines } = warningLogger();
    const consumer = new KafkaSourceConsumer(
      'orders',
      kafkaSource({ bootstrapServers: `127.0.0.1:${port}` }),
      { handler, logger },
    );
    await consumer.start();
    expect(consumer.isHealthy()).toBe(false);
    expect(lines[0]).toMatch(
      /^Source 'orders' cannot reach Kafka yet, so it keeps trying in the background\. Reason: /,
    );
    for (let waited = 0; waited < 15_000; waited += 100) {
      if (lines.some((line) => line.startsWith("Source 'orders' could not reconnect"))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(lines.some((line) => line.startsWith("Source 'orders' could not reconnect"))).toBe(true);
    expect(lines.join('\n')).not.toContain('undefined');
    const started = performance.now();
    await consumer.close();
    expect(performance.now() - started).toBeLessThan(6_000);
    expect(consumer.isHealthy()).toBe(false);
  }, 30_000);
});
