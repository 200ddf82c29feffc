/**
 * @queuebox/rabbitmq: QueueBox on RabbitMQ through amqplib. The publisher delivers outbox rows to
 * exchanges with publisher confirms (spec §6.2); the source consumer reads a queue into the inbox
 * (spec §7.6), acknowledging a delivery only once the inbox side reports it durably handled.
 *
 * It speaks AMQP and converts what AMQP carries (headers, properties); it does not route, render
 * templates, transform, extract attributes or store: the outbox and inbox services do, behind
 * core's Publisher and SourceConsumer ports. The app finds it through `provider`.
 */
import { brokerProvider } from '@queuebox/core';
import { descriptor } from './descriptor.js';
import { createRabbitPublisher } from './publisher/rabbit-publisher.js';
import { RabbitSourceConsumer } from './source/rabbit-consumer.js';

export {
  createRabbitPublisher,
  type RabbitPublisherOptions,
} from './publisher/rabbit-publisher.js';
export { classifyRabbitError, rabbitError } from './classify-error.js';
export { CONFIRM_TIMEOUT_MS } from './publisher/destination-link.js';
export {
  RabbitSourceConsumer,
  toSourceDelivery,
  type RabbitConsumerDeps,
  type RabbitConsumerOptions,
} from './source/rabbit-consumer.js';
export { convertHeaders, headerText as amqpHeaderText } from './source/header-conversion.js';
export { MAX_HEADER_TABLE_BYTES, MAX_SHORT_STRING_BYTES } from './publisher/wire-message.js';

export { descriptor };

export const provider = brokerProvider(descriptor, createRabbitPublisher, RabbitSourceConsumer);
