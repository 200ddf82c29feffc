/**
 * The Kafka publisher (spec §6.3): one client and idempotent producer per destination name
 * (destination-link.ts) in core's publisher shell, connected by the first publish.
 */
import {
  destinationPublisher,
  type AppConfig,
  type BrokerDeps,
  type Publisher,
} from '@queuebox/core';
import type { ISocketFactory } from '../kafkajs.js';
import { DestinationLink } from './destination-link.js';

export interface KafkaPublisherOptions {
  /** Test seam: how the clients open sockets (through a fault proxy). */
  readonly socketFactory?: ISocketFactory;
}

export function createKafkaPublisher(
  config: Pick<AppConfig, 'destinations'>,
  deps: BrokerDeps,
  options: KafkaPublisherOptions = {},
): Publisher {
  return destinationPublisher(
    'kafka',
    config,
    (name, destination) =>
      new DestinationLink({ name, config: destination, logger: deps.logger, ...options }),
  );
}
