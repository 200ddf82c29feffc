/**
 * Compiles one configured `transform` block into a route or destination stage. A compile error
 * stops the start and names the key path, so an operator can find the expression in the YAML.
 */
import {
  compileConfigured,
  limitsOf,
  type TransformConfig,
  type Transformer,
} from '@queuebox/core';
import type { TransformStage } from '../routing/routing-result.js';

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
