import type { HttpStatusClass, OutboxMetrics, TransformFailureStrategy } from '@queuebox/core';

/**
 * The HTTP publisher and the transform pipeline report through callbacks, so a publisher or a
 * pipeline built without metrics needs no handles; these are the callbacks that count them, for
 * the app's wiring: `createHttpPublisher({ ..., onResponse })`,
 * `createTransformPipeline({ onTransformFailure })`.
 */
export function outboxMetricListeners(
  metrics: Pick<OutboxMetrics, 'httpResponses' | 'transformFailures'>,
) {
  return {
    onResponse: (statusClass: HttpStatusClass): void => {
      metrics.httpResponses.inc({ status_class: statusClass });
    },
    onTransformFailure: (strategy: TransformFailureStrategy): void => {
      metrics.transformFailures.inc({ strategy });
    },
  };
}
