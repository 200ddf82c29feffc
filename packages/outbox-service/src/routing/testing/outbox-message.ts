/** Test fixtures: an outbox row with sensible defaults (dev only; not exported by the package). */
import { JsonPayload, type OutboxMessage } from '@queuebox/core';

export function outboxMessage(overrides: Partial<OutboxMessage> = {}): OutboxMessage {
  return {
    id: '0198c2f4-5d6e-7a8b-9c0d-1e2f3a4b5c6d',
    topic: 'orders.created',
    key: null,
    aggregateType: null,
    payload: JsonPayload.fromValue({ orderId: 42 }),
    headers: {},
    state: 'processing',
    attempt: 0,
    maxAttempts: 5,
    scheduledAt: new Date('2025-01-02T03:04:05.000Z'),
    createdAt: new Date('2025-01-02T03:04:05.678Z'),
    sequence: 1n,
    lastError: null,
    ...overrides,
  };
}
