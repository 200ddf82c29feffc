/**
 * The broker source contract on Kafka: a fresh topic and consumer group per case, consumed
 * through a fault proxy (kafkajs's socketFactory dials the proxy for every broker). "Outstanding"
 * is what the group has not committed past. Runs wherever a Kafka answers; skipped elsewhere
 * with the printed reason.
 */
import { silentLogger } from '@queuebox/core';
import { createBrokerIngest } from '@queuebox/inbox-service';
import {
  brokerAddress,
  createKafkaKit,
  kafkaSource,
  requireService,
  startFaultProxy,
  viaProxy,
} from '@queuebox/testing';
import { brokerSourceContract, contractIngest } from '@queuebox/testing/contracts';
import { KafkaSourceConsumer } from '../src/index.js';

const MAX_POLL_RECORDS = 4;

brokerSourceContract({
  label: 'Kafka',
  service: await requireService('kafka', 'kafka: broker source contract (12 tests)'),
  ingest: contractIngest(createBrokerIngest, kafkaSource()),
  async open(brokers) {
    const kit = await createKafkaKit(brokers, 'qb-source-contract');
    const topic = await kit.topic(kit.name('in'), 2);
    const groupId = kit.name('group');
    const proxy = await startFaultProxy({ target: brokerAddress(brokers) });
    const config = kafkaSource({
      bootstrapServers: brokers,
      topics: [topic],
      groupId,
      maxPollRecords: MAX_POLL_RECORDS,
    });
    return {
      consumer: (handler, logger) =>
        new KafkaSourceConsumer(
          'contract',
          config,
          { handler, logger: logger ?? silentLogger },
          { socketFactory: viaProxy(proxy) },
        ),
      probe: {
        publish: (message) =>
          kit.produce(topic, {
            value: typeof message.body === 'string' ? message.body : Buffer.from(message.body),
            ...(message.id === undefined ? {} : { key: message.id }),
            ...(message.publishTime === undefined ? {} : { timestamp: message.publishTime }),
            headers: { ...message.headers },
          }),
        outstanding: () => kit.lag(groupId, topic),
      },
      proxy,
      maxInFlight: MAX_POLL_RECORDS,
      healthComponent: 'kafka.contract',
      // The record key is the id slot; Kafka has no correlation id property.
      fallbacks: { idempotencyKey: true, correlationId: false, publishTime: 'given' },
      drop: () => kit.cleanup(),
    };
  },
});
