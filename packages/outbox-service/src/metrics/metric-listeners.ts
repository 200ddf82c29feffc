import type {
  Counter,
  HttpStatusClass,
  OutboxMetrics,
  TransformFailureStrategy,
} from '@queuebox/core';

/**
 * The HTTP publisher and the transform pipeline report through callbacks, so a publisher or a
 * pipeline built without metrics needs no handles; these are the callbacks that count them, for
 * the app's wiring: `createHttpPublisher({ ..., onResponse })`,
 * `createTransformPipeline({ onTransformFailure })`.
 */
export function outboxMetricListeners(
  metrics: Pick<OutboxMetrics, 'httpResponses' | 'transformFailures'>,
) {
  // One response per message: each class's series is resolved on its first response.
  const byClass = new Map<HttpStatusClass, Counter>();
  return {
    onResponse: (statusClass: HttpStatusClass): void => {
      let series = byClass.get(statusClass);
      if (series === undefined) {
        series = metrics.httpResponses.child({ status_class: statusClass });
        byClass.set(statusClass, series);
      }
      series.inc();
    },
    onTransformFailure: (strategy: TransformFailureStrategy): void => {
      metrics.transformFailures.inc({ strategy });
    },
  };
}
