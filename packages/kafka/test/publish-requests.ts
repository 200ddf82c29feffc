/** A Kafka destination for the publisher tests, and the shared publish requests. */
import type { KafkaDestinationConfig } from '@queuebox/core';
import { kafkaDestination as sharedKafkaDestination } from '@queuebox/testing';

export { destinations, publishRequest } from '@queuebox/testing';

export function kafkaDestination(
  overrides: Partial<KafkaDestinationConfig> = {},
): KafkaDestinationConfig {
  // The shared fixture with a topic no test creates, so a test that forgets its own fails.
  return sharedKafkaDestination({
    bootstrapServers: '127.0.0.1:9092',
    topic: 'unused',
    ...overrides,
  });
}
