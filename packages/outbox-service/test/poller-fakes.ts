import type { OutboxMessage } from '@queuebox/core';
import type { MessageRouter, RoutingResult } from '../src/routing/message-router.js';
import type { PipelineResult, TransformPipeline } from '../src/transform/transform-pipeline.js';
import type { TransformStage } from '../src/transform/transform-stage.js';

/**
 * Unit-test fakes of the poller's own collaborators (router, transform pipeline, stage): these
 * are outbox-service interfaces, not core ports, so they stay here; the fake publisher, the
 * recording logger and `until` are @queuebox/testing's.
 */

export type FakeRoute = Partial<RoutingResult> & { readonly destination: string };

/** What a route to a plain HTTP destination resolves to: no transform, key or address. */
export function plainHttpRouting(destination: string): RoutingResult {
  return {
    destination,
    destinationType: 'http',
    routeTransform: null,
    destinationTransform: null,
    routingKey: null,
    address: null,
    addressProblem: null,
  };
}

/** Routes by exact topic; `*` is the fallback; a topic with neither has no route. */
export function fakeRouter(routes: Readonly<Record<string, FakeRoute>>): MessageRouter {
  const resolve = (topic: string): FakeRoute | undefined => routes[topic] ?? routes['*'];
  return {
    route(message: OutboxMessage): RoutingResult | null {
      const route = resolve(message.topic);
      if (!route) return null;
      return { ...plainHttpRouting(route.destination), ...route };
    },
    destinationOf: (topic) => resolve(topic)?.destination ?? null,
  };
}

/** A stage marker: the fake pipeline does the work, the router only says a transform exists. */
export const transformStage: TransformStage = {
  onError: 'Fail',
  keyPath: 'routes[0].transform.expression',
  evaluate: () => Promise.reject(new Error('the fake pipeline evaluates, not the stage')),
};

export function fakePipeline(
  run: (message: OutboxMessage) => PipelineResult | Promise<PipelineResult>,
): TransformPipeline {
  return { run: async (message) => run(message) };
}

export const passThroughPipeline: TransformPipeline = fakePipeline((message) => ({
  kind: 'success',
  payload: message.payload,
}));
