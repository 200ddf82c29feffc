/**
 * The router of spec §5.1/§5.2: ordered routes, the first whose pattern matches the whole topic
 * wins, and a row goes to exactly one destination. Everything it needs was compiled at start
 * (`validateRouting`), so routing a row renders templates and nothing else.
 */
import type { DestinationType, OutboxMessage } from '@queuebox/core';
import { resolveAddress, resolveRoutingKey, templateFields } from './address-resolver.js';
import type { CompiledRoute, RoutingPlan } from './routing-plan.js';
import type { TransformStage } from '../transform/transform-stage.js';

/** What the router decided for one row (spec §5.2). */
export interface RoutingResult {
  readonly destination: string;
  readonly destinationType: DestinationType;
  readonly routeTransform: TransformStage | null;
  readonly destinationTransform: TransformStage | null;
  /** The broker's routing or record key; null when none applies. */
  readonly routingKey: string | null;
  /** The broker's exchange, topic or subject; null for HTTP. Empty string = failed render. */
  readonly address: string | null;
  /**
   * Set (and `address` is `''`) when the address resolved blank: the error the poller fails this
   * row's publish with (spec §5.2), naming the template or the `*From` column, e.g. "The address
   * template of destination 'x' rendered empty (...)". Null otherwise.
   */
  readonly addressProblem: string | null;
}

export interface MessageRouter {
  /** First matching route wins; null when no route matches the topic. */
  route(message: OutboxMessage): RoutingResult | null;
  /** Which destination a topic routes to (admin replay by destination), without a row. */
  destinationOf(topic: string): string | null;
}

export function createMessageRouter(plan: RoutingPlan): MessageRouter {
  const match = (topic: string): CompiledRoute | undefined =>
    plan.routes.find((route) => route.pattern.test(topic));

  return {
    route(message: OutboxMessage): RoutingResult | null {
      const route = match(message.topic);
      if (route === undefined) return null;
      const name = route.config.destination;
      const destination = plan.destinations.get(name);
      // The validator refuses a route to an unknown destination; a hand-built plan may not.
      if (destination === undefined) return null;
      const fields = templateFields(message);
      const { address, problem } = resolveAddress(
        name,
        destination.config,
        destination.address,
        message,
        fields,
      );
      return {
        destination: name,
        destinationType: destination.config.type,
        routeTransform: route.transform,
        destinationTransform: destination.transform,
        routingKey: resolveRoutingKey(
          route.config,
          destination.config,
          destination.address,
          fields,
        ),
        address,
        addressProblem: problem,
      };
    },

    destinationOf(topic: string): string | null {
      return match(topic)?.config.destination ?? null;
    },
  };
}
