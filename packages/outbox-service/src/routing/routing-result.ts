import type { DestinationType, Json, JsonPayload, OutboxMessage } from '@queuebox/core';

/** A compiled transform stage with its configured error strategy (spec §5.4). */
export interface TransformStage {
  readonly onError: 'Fail' | 'Skip' | 'Dead';
  /** Config key path, e.g. `routes[0].transform.expression`, for messages. */
  readonly keyPath: string;
  evaluate(
    input: Json,
    bindings: Record<string, Json>,
  ): Promise<{ ok: true; value: Json } | { ok: false; reason: string }>;
}

/** What the router decided for one row (spec §5.2). */
export interface RoutingResult {
  readonly destination: string;
  readonly destinationType: DestinationType;
  readonly routeTransform: TransformStage | null;
  readonly destinationTransform: TransformStage | null;
  /** RabbitMQ routing key / Kafka record key; null when none applies. */
  readonly routingKey: string | null;
  /** RabbitMQ exchange / Kafka topic / NATS subject; null for HTTP. Empty string = failed render. */
  readonly address: string | null;
  /**
   * Set (and `address` is `''`) when the address resolved blank: the error the poller fails this
   * row's publish with, e.g. "The address template of destination 'x' rendered empty (...)".
   * Optional so that hand-made results in tests need not spell it out.
   */
  readonly addressProblem?: string | null;
}

export interface MessageRouter {
  /** First matching route wins; null when no route matches the topic. */
  route(message: OutboxMessage): RoutingResult | null;
  /** Which destination a topic routes to (admin replay by destination), without a row. */
  destinationOf(topic: string): string | null;
}

/** Result of running the route then the destination stage on one row (spec §5.4). */
export type PipelineResult =
  /** The row's own payload when every stage was skipped, else the last stage's result. */
  | { readonly kind: 'success'; readonly payload: JsonPayload }
  | { readonly kind: 'error'; readonly reason: string }
  | { readonly kind: 'dead' };

export interface TransformPipeline {
  run(message: OutboxMessage, routing: RoutingResult): Promise<PipelineResult>;
}
