import { QueueBoxError, toError } from '../errors.js';
import type { Json } from '../model.js';

/** Variables bound into a JSONata evaluation (`$messageId`, `$topic`, ...). */
export type TransformBindings = Record<string, Json>;

export interface TransformLimits {
  readonly timeoutMs: number;
  readonly maxDepth: number;
}

export type TransformOutcome =
  { readonly ok: true; readonly value: Json } | { readonly ok: false; readonly reason: string };

/** A compiled expression, evaluated under its limits. */
export interface CompiledTransform {
  evaluate(input: Json, bindings: TransformBindings): Promise<TransformOutcome>;
}

/**
 * The transform engine port. The JSONata engine lives in `outbox-service`; the app injects it
 * into `inbox-service`, which needs it for source transforms and key expressions.
 */
export interface Transformer {
  /** Compiles at start; throws a message naming the reason when the expression is invalid. */
  compile(expression: string, limits: TransformLimits): CompiledTransform;
}

/**
 * Compiles a configured expression at start. A compile error stops the start with the key path
 * of the expression (`routes[0].transform.expression`, `sources.x.idempotencyKeyExpression`),
 * so an operator finds it in the YAML.
 */
export function compileConfigured(
  transformer: Transformer,
  expression: string,
  limits: TransformLimits,
  keyPath: string,
): CompiledTransform {
  try {
    return transformer.compile(expression, limits);
  } catch (error: unknown) {
    throw new QueueBoxError(
      'config_invalid',
      `${keyPath}: the JSONata expression does not compile: ${toError(error).message}`,
      { cause: error },
    );
  }
}

/** The limits of a configured `transform` block (the block carries more than the limits). */
export function limitsOf(config: TransformLimits): TransformLimits {
  return { timeoutMs: config.timeoutMs, maxDepth: config.maxDepth };
}
