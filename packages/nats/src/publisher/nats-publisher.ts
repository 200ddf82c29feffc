/**
 * The NATS publisher (spec §6.4): one connection per destination name (destination-link.ts) in
 * core's publisher shell, opened by the first publish.
 */
import {
  destinationPublisher,
  type AppConfig,
  type BrokerDeps,
  type Publisher,
} from '@queuebox/core';
import { DestinationLink } from './destination-link.js';

export function createNatsPublisher(
  config: Pick<AppConfig, 'destinations'>,
  deps: BrokerDeps,
): Publisher {
  return destinationPublisher(
    'nats',
    config,
    (name, destination) => new DestinationLink({ name, config: destination, logger: deps.logger }),
  );
}
