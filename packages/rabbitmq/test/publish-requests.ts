/**
 * Publish requests as the poller hands them to a publisher, for the publisher tests: a claimed
 * outbox row (payload text as the database returns it), its destination, routing key and address.
 */
import { randomUUID } from 'node:crypto';
import {
  JsonPayload,
  type AppConfig,
  type OutboxMessage,
  type PublishRequest,
  type RabbitDestinationConfig,
} from '@queuebox/core';

export function outboxMessage(overrides: Partial<OutboxMessage> = {}): OutboxMessage {
  return {
    id: randomUUID(),
    topic: 'order.created',
    key: null,
    aggregateType: null,
    payload: JsonPayload.fromText('{"n": 1}'),
    headers: {},
    state: 'processing',
    attempt: 0,
    maxAttempts: 5,
    scheduledAt: new Date(),
    createdAt: new Date(),
    sequence: null,
    lastError: null,
    ...overrides,
  };
}

export function publishRequest(
  destination: string,
  address: string | null,
  routingKey: string | null,
  message: OutboxMessage = outboxMessage(),
  signal: AbortSignal = new AbortController().signal,
): PublishRequest {
  return { message, destination, payload: message.payload, routingKey, address, signal };
}

export function rabbitDestination(
  url: string,
  overrides: Partial<RabbitDestinationConfig> = {},
): RabbitDestinationConfig {
  return {
    type: 'rabbitmq',
    url,
    exchange: 'unused',
    exchangeFrom: null,
    exchangeType: 'topic',
    routingKeyTemplate: '{{ topic }}',
    deliveryMode: 'persistent',
    headers: {},
    transform: null,
    ...overrides,
  };
}

export function destinations(
  entries: Record<string, RabbitDestinationConfig>,
): Pick<AppConfig, 'destinations'> {
  return { destinations: entries };
}
