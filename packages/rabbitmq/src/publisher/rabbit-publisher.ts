/**
 * The RabbitMQ publisher (spec §6.2): one connection and confirm channel per destination name
 * (destination-link.ts) in core's publisher shell, opened by the first publish.
 */
import {
  destinationPublisher,
  type AppConfig,
  type BrokerDeps,
  type Publisher,
} from '@queuebox/core';
import { DestinationLink } from './destination-link.js';

export interface RabbitPublisherOptions {
  /** Test seam: the confirm wait (spec: 5000 ms). */
  readonly confirmTimeoutMs?: number;
}

export function createRabbitPublisher(
  config: Pick<AppConfig, 'destinations'>,
  deps: BrokerDeps,
  options: RabbitPublisherOptions = {},
): Publisher {
  return destinationPublisher(
    'rabbitmq',
    config,
    (name, destination) =>
      new DestinationLink({ name, config: destination, logger: deps.logger, ...options }),
  );
}
