/**
 * The Kafka publisher runs the publisher contract of @queuebox/testing against a real topic:
 * `refuse` makes the fault proxy refuse and cut every connection, `stall` holds the broker's
 * answers back in it (no ack comes), and the contract's timeout is the destination's `timeoutMs`
 * (at least 2000 ms, spec §6.3). Runs wherever a Kafka answers (QUEUEBOX_TEST_KAFKA_BROKERS,
 * 127.0.0.1:9092, or testcontainers' apache/kafka); skipped with the printed reason elsewhere.
 */
import { silentLogger } from '@queuebox/core';
import {
  brokerAddress,
  createKafkaKit,
  requireService,
  startFaultProxy,
  viaProxy,
} from '@queuebox/testing';
import { publisherContract, type ReceivedMessage } from '@queuebox/testing/contracts';
import { createKafkaPublisher } from '../src/index.js';
import { destinations, kafkaDestination, publishRequest } from './publish-requests.js';

publisherContract({
  label: 'Kafka publisher on a topic',
  service: await requireService('kafka', 'kafka: publisher contract (11 tests)'),
  async open(options, brokers) {
    const kit = await createKafkaKit(brokers, 'qb-publisher-contract');
    const topic = await kit.topic(kit.name('orders'));
    const collector = kit.collect(topic);
    const proxy = await startFaultProxy({ target: brokerAddress(brokers) });
    const timeoutMs = Math.max(2_000, options.timeoutMs ?? 30_000);
    const publisher = createKafkaPublisher(
      destinations({
        k: kafkaDestination({
          bootstrapServers: brokers,
          topic,
          timeoutMs,
          headers: options.staticHeaders ?? {},
        }),
      }),
      { logger: silentLogger },
      { socketFactory: viaProxy(proxy) },
    );
    // Connected, producer id assigned and topic metadata known before any case: `stall` then
    // holds the acks back, not the handshake. The warm-up record is left out of `received`.
    await publisher.publish(publishRequest('k', topic, null));
    const received = (): Promise<ReceivedMessage[]> =>
      Promise.resolve(
        collector.records.slice(1).map((record) => {
          const headers: Record<string, string> = {};
          for (const [name, value] of record.headers) {
            const lower = name.toLowerCase();
            headers[lower] = lower in headers ? `${headers[lower]}, ${value}` : value;
          }
          return { body: record.value, messageId: headers['x-message-id'], headers };
        }),
      );
    return {
      publisher,
      destination: 'k',
      timeoutMs,
      address: topic,
      routingKey: null,
      received,
      refuse() {
        proxy.refuse();
        proxy.cut();
        return Promise.resolve();
      },
      proxy,
      accept() {
        proxy.restore();
        return Promise.resolve();
      },
      close: () => kit.cleanup(),
    };
  },
});
