/**
 * The RabbitMQ publisher (spec §6.2): one connection and confirm channel per destination name,
 * opened by the first publish, so a destination no route reaches costs no connection.
 */
import type {
  AppConfig,
  BrokerDeps,
  PublishOutcome,
  PublishRequest,
  Publisher,
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
  const links = new Map<string, DestinationLink>();
  for (const [name, destination] of Object.entries(config.destinations)) {
    if (destination.type !== 'rabbitmq') continue;
    links.set(
      name,
      new DestinationLink({
        name,
        config: destination,
        logger: deps.logger,
        ...(options.confirmTimeoutMs === undefined
          ? {}
          : { confirmTimeoutMs: options.confirmTimeoutMs }),
      }),
    );
  }
  return {
    type: 'rabbitmq',
    supports: (destination) => links.has(destination),
    publish(request: PublishRequest): Promise<PublishOutcome> {
      const link = links.get(request.destination);
      if (link === undefined) {
        return Promise.resolve({
          ok: false,
          error: `No publisher supports destination '${request.destination}'`,
          retryable: false,
        });
      }
      return link.publish(request);
    },
    async close() {
      await Promise.all([...links.values()].map((link) => link.close()));
    },
  };
}
