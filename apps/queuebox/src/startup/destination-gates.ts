import type { AppConfig, Logger, Metrics } from '@queuebox/core';
import { DestinationGates } from '@queuebox/outbox-service';

export interface GateDeps {
  readonly metrics: Pick<Metrics, 'outbox'>;
  readonly logger: Logger;
}

/**
 * The gates of the destinations that configure one (circuit breaker, rate limit). A
 * destination's gates are asked in the order they are added here; with none added the poller
 * runs the plain claim and publish path.
 */
export function buildDestinationGates(config: AppConfig, _deps: GateDeps): DestinationGates {
  return new DestinationGates(config.routes);
}
