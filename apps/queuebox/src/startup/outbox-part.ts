import type {
  AppConfig,
  Database,
  DestinationType,
  Logger,
  Publisher,
  Transformer,
} from '@queuebox/core';
import {
  OutboxPoller,
  RetentionService,
  checkPrivateAddresses,
  createHttpPublisher,
  createMessageRouter,
  createOutboxMetrics,
  createTransformPipeline,
  outboxMetricListeners,
  validateRouting,
  type MessageRouter,
  type OutboxMetrics,
  type RoutingPlan,
} from '@queuebox/outbox-service';
import type { Registry } from 'prom-client';

/** The destination types this build can publish to; a configured other type stops the start. */
const PUBLISHER_TYPES: readonly DestinationType[] = ['http'];

/** What spec §17.1 steps 3–4 build before the database is touched. */
export interface OutboxPlan {
  readonly routing: RoutingPlan;
  readonly router: MessageRouter;
  readonly metrics: OutboxMetrics;
  readonly publishers: readonly Publisher[];
}

export async function planOutbox(
  config: AppConfig,
  transformer: Transformer,
  registry: Registry,
  logger: Logger,
): Promise<OutboxPlan> {
  const routing = validateRouting(config, transformer, { publisherTypes: PUBLISHER_TYPES });
  await checkPrivateAddresses(config);
  const metrics = createOutboxMetrics(registry);
  const listeners = outboxMetricListeners(metrics);
  const publishers = [createHttpPublisher({ config, onResponse: listeners.onResponse, logger })];
  return { routing, router: createMessageRouter(routing), metrics, publishers };
}

export interface OutboxPart {
  readonly poller: OutboxPoller;
  readonly retention: RetentionService | null;
}

export function buildOutbox(
  config: AppConfig,
  plan: OutboxPlan,
  database: Database,
  logger: Logger,
): OutboxPart {
  const listeners = outboxMetricListeners(plan.metrics);
  const poller = new OutboxPoller(config.outbox, {
    store: database.outboxStore(),
    router: plan.router,
    pipeline: createTransformPipeline({ onTransformFailure: listeners.onTransformFailure }),
    publishers: plan.publishers,
    metrics: plan.metrics,
    logger,
  });
  const retention = config.retention.enabled
    ? new RetentionService(config.retention, {
        store: database.retentionStore(),
        metrics: plan.metrics.retention,
        logger,
      })
    : null;
  return { poller, retention };
}
