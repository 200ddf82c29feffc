/**
 * Publish requests as the poller hands them to a publisher, for the publisher tests, and a Kafka
 * destination with the defaults the configuration loader fills in.
 */
import {
  type AppConfig,
  type KafkaDestinationConfig,
  type OutboxMessage,
  type PublishRequest,
} from '@queuebox/core';
import { outboxMessage } from '@queuebox/testing';

export function publishRequest(
  destination: string,
  address: string | null,
  routingKey: string | null,
  message: OutboxMessage = outboxMessage(),
  signal: AbortSignal = new AbortController().signal,
): PublishRequest {
  return { message, destination, payload: message.payload, routingKey, address, signal };
}

export function kafkaDestination(
  overrides: Partial<KafkaDestinationConfig> = {},
): KafkaDestinationConfig {
  return {
    type: 'kafka',
    bootstrapServers: '127.0.0.1:9092',
    topic: 'unused',
    topicFrom: null,
    keyTemplate: '{{ key }}',
    timeoutMs: 30_000,
    securityProtocol: 'PLAINTEXT',
    saslMechanism: null,
    saslUsername: null,
    saslPassword: null,
    headers: {},
    transform: null,
    ...overrides,
  };
}

export function destinations(
  entries: Record<string, KafkaDestinationConfig>,
): Pick<AppConfig, 'destinations'> {
  return { destinations: entries };
}
