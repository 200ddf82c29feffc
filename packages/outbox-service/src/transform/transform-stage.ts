/**
 * Compiles one configured `transform` block into a route or destination stage. A compile error
 * stops the start and names the key path, so an operator can find the expression in the YAML.
 */
import { QueueBoxError, toError, type TransformConfig, type Transformer } from '@queuebox/core';
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
  let compiled;
  try {
    compiled = transformer.compile(config.expression, {
      timeoutMs: config.timeoutMs,
      maxDepth: config.maxDepth,
    });
  } catch (error: unknown) {
    throw new QueueBoxError(
      'config_invalid',
      `${keyPath}: the JSONata expression does not compile: ${toError(error).message}`,
      { cause: error },
    );
  }
  return {
    onError: config.onError,
    keyPath,
    evaluate: (input, bindings) => compiled.evaluate(input, bindings),
  };
}
