/** Messages the contracts write through the ports, with defaults a case overrides. */
import { randomUUID } from 'node:crypto';
import { JsonPayload, type NewInboxMessage, type NewOutboxMessage } from '@queuebox/core';

/** An outbox message whose payload names its topic and key. */
export function outboxInsert(
  topic: string,
  key: string | null = null,
  extra: Partial<NewOutboxMessage> = {},
): NewOutboxMessage {
  return { topic, key, payload: { topic, key }, ...extra };
}

/** A push message of source `orders` with a fresh id and key. */
export function inboxInsert(overrides: Partial<NewInboxMessage> = {}): NewInboxMessage {
  return {
    id: randomUUID(),
    source: 'orders',
    idempotencyKey: randomUUID(),
    aggregateId: null,
    eventType: 'order.created',
    payload: JsonPayload.fromValue({ n: 1 }),
    headers: {},
    correlationId: null,
    consumption: 'push',
    publishTime: null,
    ...overrides,
  };
}
