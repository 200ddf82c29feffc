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
