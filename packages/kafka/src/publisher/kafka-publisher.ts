/**
 * The Kafka publisher (spec §6.3): one client and idempotent producer per destination name
 * (destination-link.ts) in core's publisher shell, connected by the first publish.
 */
import { linkPublisher } from '@queuebox/core';
import { DestinationLink, type DestinationLinkOptions } from './destination-link.js';

/** Test seam: how the clients open sockets (through a fault proxy). */
export type KafkaPublisherOptions = Pick<DestinationLinkOptions, 'socketFactory'>;

export const createKafkaPublisher = linkPublisher<'kafka', KafkaPublisherOptions>(
  'kafka',
  (options) => new DestinationLink(options),
);
