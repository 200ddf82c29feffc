import type { AppConfig, Logger } from '@queuebox/core';
import { addCircuitBreakers, DestinationGates } from '@queuebox/outbox-service';
import type { Registry } from 'prom-client';
import type { HealthComponent } from '../http/health.js';
import { registerCircuitStateFamily } from '../observability/metric-families.js';

export interface GateDeps {
  /** Where `queuebox_destination_circuit_state` goes; null in tests that scrape nothing. */
  readonly registry: Registry | null;
  readonly logger: Logger;
}

export interface BuiltGates {
  readonly gates: DestinationGates;
  /** One advisory component per circuit breaker: `destination-circuit-<name>`. */
  readonly health: HealthComponent[];
}

/**
 * The gates of the destinations that configure one. A destination's gates are asked in the order
 * they are added here: the circuit breaker first, so an open circuit takes nothing from a rate
 * limit. With none added the poller runs the plain claim and publish path, and no family is
 * registered, so a scrape without a breaker is the reference's.
 */
export function buildDestinationGates(config: AppConfig, deps: GateDeps): BuiltGates {
  const gates = new DestinationGates(config.routes);
  const withBreaker = Object.values(config.destinations).some(
    (destination) =>
      destination.circuitBreaker !== null && destination.circuitBreaker !== undefined,
  );
  const circuitState =
    withBreaker && deps.registry !== null ? registerCircuitStateFamily(deps.registry) : null;
  const breakers = addCircuitBreakers(gates, config.destinations, {
    logger: deps.logger,
    circuitState,
  });
  // Advisory (spec §11.4 knows only up and down): an open circuit is the receiver's outage, and
  // a replica taken out of the load balancer for it would not make the receiver come back.
  const health = breakers.map((breaker): HealthComponent => ({
    name: `destination-circuit-${breaker.destination}`,
    advisory: true,
    check: () => breaker.state(gates.now()) === 'closed',
  }));
  return { gates, health };
}
