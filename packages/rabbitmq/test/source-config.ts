/** A RabbitMQ source configuration with the defaults the configuration loader fills in. */
import type { RabbitSourceConfig } from '@queuebox/core';
import type { FaultProxy } from '@queuebox/testing';

export function rabbitSource(overrides: Partial<RabbitSourceConfig> = {}): RabbitSourceConfig {
  return {
    type: 'rabbitmq',
    queueName: 'unused',
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

/** The broker's URL with its host and port replaced by the proxy's. */
export function viaProxy(url: string, proxy: FaultProxy): string {
  const parsed = new URL(url);
  parsed.hostname = proxy.host;
  parsed.port = String(proxy.port);
  return parsed.toString();
}

/** Host and port of an AMQP URL, for the fault proxy's target. */
export function brokerAddress(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 5672) };
}
