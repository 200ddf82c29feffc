/** A Kafka source configuration with the defaults the configuration loader fills in. */
import type { KafkaSourceConfig } from '@queuebox/core';
import { brokerSourceDefaults } from '@queuebox/testing';

export function kafkaSource(overrides: Partial<KafkaSourceConfig> = {}): KafkaSourceConfig {
  return {
    ...brokerSourceDefaults(),
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
