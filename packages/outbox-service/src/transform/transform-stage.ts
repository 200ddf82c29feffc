/**
 * Compiles one configured `transform` block into a route or destination stage. A compile error
 * stops the start and names the key path, so an operator can find the expression in the YAML.
 */
import {
  compileConfigured,
  limitsOf,
  type Json,
  type TransformConfig,
  type Transformer,
} from '@queuebox/core';

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

/**
 * @param keyPath the configuration key of the expression, e.g. `routes[0].transform.expression`
 *   or `destinations.orders.transform.expression`.
 */
export function compileTransformStage(
  transformer: Transformer,
  config: TransformConfig,
  keyPath: string,
): TransformStage {
  const compiled = compileConfigured(transformer, config.expression, limitsOf(config), keyPath);
  return {
    onError: config.onError,
    keyPath,
    evaluate: (input, bindings) => compiled.evaluate(input, bindings),
  };
}
