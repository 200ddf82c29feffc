/** A test-only RabbitMQ source configuration with the defaults the configuration loader fills in. */
import type { RabbitSourceConfig } from '@queuebox/core';

export function rabbitSource(overrides: Partial<RabbitSourceConfig> = {}): RabbitSourceConfig {
  return {
    type: 'rabbitmq',
    queueName: 'orders',
    connectionUrl: 'amqp://127.0.0.1:5672',
    prefetchCount: 10,
    declareQueue: false,
    eventTypeFromHeader: false,
    attributeHeaders: {
      idempotencyKey: 'x-idempotency-key',
      aggregateId: 'x-aggregate-id',
      eventType: 'x-event-type',
    },
    consumption: 'push',
    topic: '{{ source }}',
    idempotencyKeyPath: ['$.id'],
    aggregateIdPath: [],
    eventTypePath: [],
    idempotencyKeyExpression: null,
    aggregateIdExpression: null,
    eventTypeExpression: null,
    initialDelayMs: 0,
    scheduledAtHeader: null,
    scheduledAtPath: [],
    transform: null,
    filter: null,
    ...overrides,
  };
}
