import type { DestinationConfig, LabeledGauge, Logger } from '@queuebox/core';
import { CIRCUIT_STATE_VALUES, CircuitBreaker, type CircuitTransition } from './circuit-breaker.js';
import type { DestinationGates } from './destination-gates.js';

export interface CircuitBreakerDeps {
  readonly logger: Logger;
  /** `queuebox_destination_circuit_state{destination}`; null when no family is registered. */
  readonly circuitState: LabeledGauge<{ destination: string }> | null;
}

/** Operator-facing texts: one line per change of a circuit's state. */
export const circuitTexts = {
  opened: (t: CircuitTransition) =>
    `The circuit of destination '${t.destination}' opened for ${t.openForMs ?? 0} ms: ${t.reason}. ` +
    `Its messages wait, and no attempt is counted while it is open.`,
  halfOpen: (t: CircuitTransition) =>
    `The circuit of destination '${t.destination}' is half-open: ${t.reason}.`,
  closed: (t: CircuitTransition) =>
    `The circuit of destination '${t.destination}' closed: ${t.reason}. Its messages flow again.`,
} as const;

/**
 * A circuit breaker for every destination with `circuitBreaker`, added to `gates` (first, so a
 * destination whose circuit is open takes no token of a rate limit). Returns them for readiness.
 */
export function addCircuitBreakers(
  gates: DestinationGates,
  destinations: Readonly<Record<string, DestinationConfig>>,
  deps: CircuitBreakerDeps,
): CircuitBreaker[] {
  const breakers: CircuitBreaker[] = [];
  for (const [name, destination] of Object.entries(destinations)) {
    const config = destination.circuitBreaker;
    if (config === null || config === undefined) continue;
    const breaker = new CircuitBreaker(name, config, (transition) => {
      deps.circuitState?.set({ destination: name }, CIRCUIT_STATE_VALUES[transition.to]);
      const log = deps.logger.child({ destination: name });
      if (transition.to === 'open') log.warn(circuitTexts.opened(transition));
      else if (transition.to === 'half-open') log.info(circuitTexts.halfOpen(transition));
      else log.info(circuitTexts.closed(transition));
    });
    deps.circuitState?.set({ destination: name }, CIRCUIT_STATE_VALUES.closed);
    gates.add(name, breaker);
    breakers.push(breaker);
  }
  return breakers;
}
