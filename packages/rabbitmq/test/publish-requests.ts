/** A RabbitMQ destination for the publisher tests, and the shared publish requests. */
import type { RabbitDestinationConfig } from '@queuebox/core';
import { rabbitDestination as sharedRabbitDestination } from '@queuebox/testing';

export { claimedOutboxRow as outboxMessage, destinations, publishRequest } from '@queuebox/testing';

export function rabbitDestination(
  url: string,
  overrides: Partial<RabbitDestinationConfig> = {},
): RabbitDestinationConfig {
  // The shared fixture with an exchange no test declares, so a test that forgets its own fails.
  return sharedRabbitDestination({ url, exchange: 'unused', ...overrides });
}
