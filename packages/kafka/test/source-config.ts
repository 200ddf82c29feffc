/** A Kafka source configuration with the defaults the configuration loader fills in. */
import type { KafkaSourceConfig } from '@queuebox/core';
import { rabbitSource } from '@queuebox/testing';

export function kafkaSource(overrides: Partial<KafkaSourceConfig> = {}): KafkaSourceConfig {
  // The shared keys of every broker source from the shared fixture, the Kafka keys here.
  const { type, queueName, connectionUrl, prefetchCount, declareQueue, ...shared } = rabbitSource();
  void [type, queueName, connectionUrl, prefetchCount, declareQueue];
  return {
    ...shared,
    type: 'kafka',
    bootstrapServers: '127.0.0.1:9092',
    topics: ['unused'],
    groupId: 'unused',
    autoOffsetReset: 'earliest',
    maxPollRecords: 100,
    securityProtocol: 'PLAINTEXT',
    saslMechanism: null,
    saslUsername: null,
    saslPassword: null,
    ...overrides,
  };
}
