/**
 * What the app and the outbox service know of RabbitMQ without loading amqplib: its sources
 * start first (spec §17.1 step 10), its publisher closes with the connections (spec §17.2), and
 * a destination's address is its exchange, with its own routing-key template (spec §6.2).
 * Its configuration block is `config-block.ts`.
 */
import type { BrokerDescriptor } from '@queuebox/core';
import { rabbitmqConfig } from './config-block.js';

export const descriptor: BrokerDescriptor<'rabbitmq'> = {
  name: 'rabbitmq',
  sourceStartOrder: 1,
  publisherStops: 'resources',
  address: {
    templateKey: 'exchange',
    fromKey: 'exchangeFrom',
    routingKey: { ownTemplateKey: 'routingKeyTemplate' },
  },
  config: rabbitmqConfig,
};
