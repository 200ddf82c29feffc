/**
 * The Kafka publisher (spec §6.3): one client and idempotent producer per destination name,
 * connected by the first publish, so a destination no route reaches costs no connection.
 */
import type {
  AppConfig,
  BrokerDeps,
  PublishOutcome,
  PublishRequest,
  Publisher,
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
  const links = new Map<string, DestinationLink>();
  for (const [name, destination] of Object.entries(config.destinations)) {
    if (destination.type !== 'kafka') continue;
    links.set(
      name,
      new DestinationLink({
        name,
        config: destination,
        logger: deps.logger,
        ...(options.socketFactory === undefined ? {} : { socketFactory: options.socketFactory }),
      }),
    );
  }
  return {
    type: 'kafka',
    supports: (destination) => links.has(destination),
    publish(request: PublishRequest): Promise<PublishOutcome> {
      const link = links.get(request.destination);
      if (link === undefined) {
        return Promise.resolve({
          ok: false,
          error: `No publisher supports destination '${request.destination}'`,
        });
      }
      return link.publish(request);
    },
    async close() {
      await Promise.all([...links.values()].map((link) => link.close()));
    },
  };
}
