/** Messages the contracts write through the ports, with defaults a case overrides. */
import type { NewOutboxMessage } from '@queuebox/core';

/** An outbox message whose payload names its topic and key. */
export function outboxInsert(
  topic: string,
  key: string | null = null,
  extra: Partial<NewOutboxMessage> = {},
): NewOutboxMessage {
  return { topic, key, payload: { topic, key }, ...extra };
}

/** A push message of source `orders` with a fresh id and key. */
export { inboxMessage as inboxInsert } from '../fixtures/inbox-message.js';
