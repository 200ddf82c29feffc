/**
 * What the app and the outbox service know of NATS without loading its client: its sources start
 * last (spec §17.1 step 10), its publisher closes with the services after the poller (spec §17.2),
 * a destination's address is its subject; NATS carries no routing key (spec §6.4); and its
 * configuration block (`config-block.ts`).
 */
import type { BrokerDescriptor } from '@queuebox/core';
import { natsConfig } from './config-block.js';

export const descriptor: BrokerDescriptor<'nats'> = {
  name: 'nats',
  sourceStartOrder: 3,
  publisherStops: 'services',
  address: { templateKey: 'subject', fromKey: 'subjectFrom', routingKey: null },
  config: natsConfig,
};
