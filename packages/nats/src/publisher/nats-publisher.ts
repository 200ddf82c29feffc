/**
 * The NATS publisher (spec §6.4): one connection per destination name, opened by the first
 * publish, so a destination no route reaches costs no connection.
 */
import type {
  AppConfig,
  BrokerDeps,
  PublishOutcome,
  PublishRequest,
  Publisher,
} from '@queuebox/core';
import { DestinationLink } from './destination-link.js';

export function createNatsPublisher(
  config: Pick<AppConfig, 'destinations'>,
  deps: BrokerDeps,
): Publisher {
  const links = new Map<string, DestinationLink>();
  for (const [name, destination] of Object.entries(config.destinations)) {
    if (destination.type !== 'nats') continue;
    links.set(name, new DestinationLink({ name, config: destination, logger: deps.logger }));
  }
  return {
    type: 'nats',
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
