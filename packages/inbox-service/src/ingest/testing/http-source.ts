/** A test-only HTTP source configuration with the defaults the configuration loader fills in. */
import type { HttpSourceConfig } from '@queuebox/core';

export function httpSource(overrides: Partial<HttpSourceConfig> = {}): HttpSourceConfig {
  return {
    type: 'http',
    path: '/test',
    consumption: 'push',
    topic: '{{ eventType }}',
    idempotencyKeyPath: [],
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
    idempotencyKeyHeader: null,
    eventTypeHeader: null,
    aggregateIdHeader: null,
    auth: null,
    rateLimit: null,
    ...overrides,
  };
}
