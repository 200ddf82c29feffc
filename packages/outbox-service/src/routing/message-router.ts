/**
 * The router of spec §5.1/§5.2: ordered routes, the first whose pattern matches the whole topic
 * wins, and a row goes to exactly one destination. Everything it needs was compiled at start
 * (`validateRouting`), so routing a row renders templates and nothing else.
 */
import type { OutboxMessage } from '@queuebox/core';
import { resolveAddress, resolveRoutingKey, templateFields } from './address-resolver.js';
import type { CompiledRoute, RoutingPlan } from './routing-plan.js';
import type { MessageRouter, RoutingResult } from './routing-result.js';

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
      const { address, problem } = resolveAddress(name, destination.config, message, fields);
      return {
        destination: name,
        destinationType: destination.config.type,
        routeTransform: route.transform,
        destinationTransform: destination.transform,
        routingKey: resolveRoutingKey(route.config, destination.config, fields),
        address,
        addressProblem: problem,
      };
    },

    destinationOf(topic: string): string | null {
      return match(topic)?.config.destination ?? null;
    },
  };
}
