/**
 * The RabbitMQ publisher (spec §6.2): one connection and confirm channel per destination name
 * (destination-link.ts) in core's publisher shell, opened by the first publish.
 */
import { linkPublisher } from '@queuebox/core';
import { DestinationLink, type DestinationLinkOptions } from './destination-link.js';

/** Test seam: the confirm wait (spec: 5000 ms). */
export type RabbitPublisherOptions = Pick<DestinationLinkOptions, 'confirmTimeoutMs'>;

export const createRabbitPublisher = linkPublisher<'rabbitmq', RabbitPublisherOptions>(
  'rabbitmq',
  (options) => new DestinationLink(options),
);
