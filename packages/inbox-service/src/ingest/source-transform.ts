/**
 * The source-stage transform (spec §5.4): runs once at receipt, after key extraction and before
 * the store, so it changes the stored payload and runs before the duplicate check.
 */
import {
  compileConfigured,
  limitsOf,
  sanitize,
  toError,
  type Headers,
  type Json,
  type TransformBindings,
  type TransformConfig,
  type TransformOnError,
  type TransformOutcome,
  type Transformer,
} from '@queuebox/core';
import {
  transformResultPayload,
  type TransformResultPayload,
} from '../validation/transform-result.js';

export interface SourceTransform {
  readonly onError: TransformOnError;
  run(body: Json, bindings: TransformBindings): Promise<TransformOutcome>;
}

/** Compiles at start; a compile error stops the start naming `sources.<name>.transform.expression`. */
export function compileSourceTransform(
  transformer: Transformer,
  config: TransformConfig | null,
  sourceName: string,
): SourceTransform | null {
  if (config === null) return null;
  const keyPath = `sources.${sourceName}.transform.expression`;
  const compiled = compileConfigured(transformer, config.expression, limitsOf(config), keyPath);
  return {
    onError: config.onError,
    async run(body, bindings) {
      try {
        return await compiled.evaluate(body, bindings);
      } catch (error: unknown) {
        // The port promises an outcome; an engine that throws anyway is a failed evaluation.
        return { ok: false, reason: toError(error).message };
      }
    },
  };
}

export interface SourceBindingValues {
  /** The id of the new inbox row. */
  readonly messageId: string;
  readonly source: string;
  readonly receivedAt: Date;
  /** The received headers without credential headers, with the sender's spelling. */
  readonly headers: Headers;
  readonly idempotencyKey: string | null;
  readonly eventType: string | null;
}

/** The variables of the source stage (spec §5.4 table, "Source stage" column). */
export function sourceBindings(values: SourceBindingValues): TransformBindings {
  return {
    messageId: values.messageId,
    topic: values.eventType ?? '',
    attempt: 0,
    timestamp: values.receivedAt.toISOString(),
    source: values.source,
    headers: values.headers,
    idempotencyKey: values.idempotencyKey,
    eventType: values.eventType,
  };
}

/**
 * Runs the source transform on a received body: the payload to store, or why it failed,
 * sanitized for the log and `last_error`. What a failure leads to is the caller's (`onError`).
 */
export async function runSourceTransform(
  transform: SourceTransform,
  body: Json,
  receipt: Omit<SourceBindingValues, 'idempotencyKey' | 'eventType'>,
  attributes: Pick<SourceBindingValues, 'idempotencyKey' | 'eventType'>,
): Promise<TransformResultPayload> {
  const { idempotencyKey, eventType } = attributes;
  const bindings = sourceBindings({ ...receipt, idempotencyKey, eventType });
  const outcome = await transform.run(body, bindings);
  const result = outcome.ok ? transformResultPayload(outcome.value) : outcome;
  return result.ok ? result : { ok: false, reason: sanitize(result.reason) };
}
