/**
 * @queuebox/rabbitmq: QueueBox on RabbitMQ through amqplib. The publisher delivers outbox rows to
 * exchanges with publisher confirms (spec §6.2); the source consumer reads a queue into the inbox
 * (spec §7.6), acknowledging a delivery only once the inbox side reports it durably handled.
 *
 * It speaks AMQP and converts what AMQP carries (headers, properties); it does not route, render
 * templates, transform, extract attributes or store: the outbox and inbox services do, behind
 * core's Publisher and SourceConsumer ports. The app finds it through `provider`.
 */
import { QueueBoxError, type BrokerProvider } from '@queuebox/core';
import { createRabbitPublisher } from './publisher/rabbit-publisher.js';

export {
  createRabbitPublisher,
  type RabbitPublisherOptions,
} from './publisher/rabbit-publisher.js';
export { CONFIRM_TIMEOUT_MS } from './publisher/destination-link.js';
export { MAX_HEADER_TABLE_BYTES, MAX_SHORT_STRING_BYTES } from './publisher/wire-message.js';

export const provider: BrokerProvider<'rabbitmq'> = {
  kind: 'broker',
  name: 'rabbitmq',
  createPublisher: (config, deps) => createRabbitPublisher(config, deps),
  createSourceConsumer: (name) => {
    throw new QueueBoxError(
      'config_invalid',
      `sources.${name}: RabbitMQ sources are not part of this build of QueueBox yet; use an http source`,
    );
  },
};
