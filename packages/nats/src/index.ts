/**
 * @queuebox/nats: QueueBox on NATS through the nats client. The publisher delivers outbox rows to
 * subjects, waiting for each JetStream PubAck (or flushing a core publish) (spec §6.4); the source
 * consumer reads a JetStream stream through a durable pull consumer into the inbox (spec §7.8),
 * acknowledging a message only once the inbox side reports it durably handled.
 *
 * It speaks NATS and converts what NATS carries (headers, JetStream metadata); it does not
 * route, render templates, transform, extract attributes or store: the outbox and inbox services
 * do, behind core's Publisher and SourceConsumer ports. It never creates a stream. The app finds
 * it through `provider`.
 */
import { brokerProvider } from '@queuebox/core';
import { descriptor } from './descriptor.js';
import { createNatsPublisher } from './publisher/nats-publisher.js';
import { NatsSourceConsumer } from './source/nats-consumer.js';

export { classifyNatsError, natsError } from './classify-error.js';
export { createNatsPublisher } from './publisher/nats-publisher.js';
export { replayMessageId, subjectProblem } from './publisher/destination-link.js';
export { wireHeaders, wireValue, isNatsHeaderName } from './publisher/wire-message.js';
export {
  NatsSourceConsumer,
  type NatsConsumerDeps,
  type NatsConsumerOptions,
} from './source/nats-consumer.js';
export { toSourceDelivery } from './source/delivery.js';
export { serverList } from './connection.js';

export { descriptor };

export const provider = brokerProvider(descriptor, createNatsPublisher, NatsSourceConsumer);
