/** A Kafka destination for the publisher tests, and the shared publish requests. */
import { silentLogger, type KafkaDestinationConfig, type Publisher } from '@queuebox/core';
import { destinations, kafkaDestination as sharedKafkaDestination } from '@queuebox/testing';
import { createKafkaPublisher } from '../src/index.js';

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

/** A publisher of one destination `k` at `brokers`, every other setting the fixture's. */
export function publisherAt(brokers: string): Publisher {
  return createKafkaPublisher(
    destinations({ k: kafkaDestination({ bootstrapServers: brokers }) }),
    { logger: silentLogger },
  );
}
