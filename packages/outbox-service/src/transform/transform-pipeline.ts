/**
 * The outbox transform pipeline (spec §4.3 step 4, §5.4): the route stage, then the destination
 * stage, on every delivery attempt. The row keeps its stored payload; a retry transforms again.
 * JSONata works on JavaScript values, so a transformed payload carries numbers as doubles: an
 * integer beyond 2^53 loses its last digits (docs/transforms.md).
 */
import {
  JsonPayload,
  sanitize,
  type Json,
  type OutboxMessage,
  type TransformBindings,
} from '@queuebox/core';
import type { RoutingResult } from '../routing/message-router.js';
import type { TransformStage } from './transform-stage.js';

/** Result of running the route then the destination stage on one row (spec §5.4). */
export type PipelineResult =
  /** The row's own payload when every stage was skipped, else the last stage's result. */
  | { readonly kind: 'success'; readonly payload: JsonPayload }
  | { readonly kind: 'error'; readonly reason: string }
  | { readonly kind: 'dead' };

export interface TransformPipeline {
  run(message: OutboxMessage, routing: RoutingResult): Promise<PipelineResult>;
}

export type TransformFailureStrategy = 'fail' | 'skip' | 'dead';

/** Which stage failed and why (sanitized), for a log line; Skip and Dead leave no other trace. */
export interface TransformFailure {
  readonly keyPath: string;
  readonly reason: string;
}

export type TransformFailureListener = (
  strategy: TransformFailureStrategy,
  failure: TransformFailure,
) => void;

export interface TransformPipelineOptions {
  /**
   * Called once per failed stage; the metrics owner counts
   * `queuebox_transform_failures_total{strategy}`.
   */
  readonly onTransformFailure?: TransformFailureListener;
}

/** The variables of the route and destination stages (`$source`, `$headers`, ... are inbox-only). */
export function outboxBindings(message: OutboxMessage): TransformBindings {
  return {
    messageId: message.id,
    topic: message.topic,
    attempt: message.attempt,
    timestamp: message.createdAt.toISOString(),
  };
}

export function createTransformPipeline(options: TransformPipelineOptions = {}): TransformPipeline {
  const onFailure = options.onTransformFailure ?? (() => undefined);

  return {
    async run(message: OutboxMessage, routing: RoutingResult): Promise<PipelineResult> {
      const { routeTransform, destinationTransform } = routing;
      if (routeTransform === null && destinationTransform === null) {
        return { kind: 'success', payload: message.payload };
      }
      const bindings = outboxBindings(message);
      // A stage that is skipped delivers its input as it came: the row's text, untouched, when
      // the route stage is skipped.
      let payload = message.payload;
      for (const stage of [routeTransform, destinationTransform]) {
        if (stage === null) continue;
        const step = await runStage(stage, payload.value, bindings, onFailure);
        if (step.kind === 'value') payload = step.payload;
        // A skipped stage delivers its own input; a skipped route stage also ends the pipeline,
        // so the destination stage never sees a payload its author did not expect.
        else if (step.kind === 'skip') return { kind: 'success', payload };
        else return step.result;
      }
      return { kind: 'success', payload };
    },
  };
}

type StageStep =
  | { readonly kind: 'value'; readonly payload: JsonPayload }
  | { readonly kind: 'skip' }
  | { readonly kind: 'stop'; readonly result: PipelineResult };

async function runStage(
  stage: TransformStage,
  input: Json,
  bindings: TransformBindings,
  onFailure: TransformFailureListener,
): Promise<StageStep> {
  const outcome = await stage.evaluate(input, bindings);
  if (outcome.ok) return { kind: 'value', payload: JsonPayload.fromValue(outcome.value) };
  // The reason can quote payload values (jsonata echoes tokens), so it is sanitized here.
  const failure = { keyPath: stage.keyPath, reason: sanitize(outcome.reason) };
  switch (stage.onError) {
    case 'Skip':
      onFailure('skip', failure);
      return { kind: 'skip' };
    case 'Dead':
      onFailure('dead', failure);
      return { kind: 'stop', result: { kind: 'dead' } };
    case 'Fail':
      onFailure('fail', failure);
      return {
        kind: 'stop',
        result: {
          kind: 'error',
          // The poller prefixes "Transform failed: "; the key path says which stage it was.
          reason: sanitize(`${stage.keyPath}: ${outcome.reason}`),
        },
      };
  }
}
