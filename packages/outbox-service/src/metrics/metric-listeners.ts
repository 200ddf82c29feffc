import type { HttpStatusClass } from '../http/status-class.js';
import type { TransformFailureStrategy } from '../transform/transform-pipeline.js';
import type { OutboxMetrics } from './outbox-metrics.js';

/**
 * The HTTP publisher and the transform pipeline report through callbacks so they stay free of
 * prom-client; these are the callbacks that count them, for the app's wiring:
 * `createHttpPublisher({ ..., onResponse })`, `createTransformPipeline({ onTransformFailure })`.
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
