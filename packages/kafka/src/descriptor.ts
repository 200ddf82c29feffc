/**
 * What the app and the outbox service know of Kafka without loading kafkajs: its sources start
 * after RabbitMQ's (spec §17.1 step 10), its publisher flushes with the services after the
 * poller (spec §17.2), and a destination's address is its topic; a route's routing-key template
 * is the record key, the destination renders none of its own here (spec §6.3).
 * Its configuration block is `config-block.ts`.
 */
import type { BrokerDescriptor } from '@queuebox/core';
import { kafkaConfig } from './config-block.js';

export const descriptor: BrokerDescriptor<'kafka'> = {
  name: 'kafka',
  sourceStartOrder: 2,
  publisherStops: 'services',
  address: {
    templateKey: 'topic',
    fromKey: 'topicFrom',
    routingKey: { ownTemplateKey: null },
  },
  config: kafkaConfig,
};
