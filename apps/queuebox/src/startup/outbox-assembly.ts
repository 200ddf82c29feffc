import {
  ClaimLoad,
  type AppConfig,
  type BrokerType,
  type Database,
  type Logger,
  type Metrics,
  type Publisher,
  type Transformer,
} from '@queuebox/core';
import {
  OutboxPoller,
  RetentionService,
  checkPrivateAddresses,
  createHttpPublisher,
  createMessageRouter,
  createTransformPipeline,
  outboxMetricListeners,
  PublisherRegistry,
  validateRouting,
  type MessageRouter,
  type RoutingPlan,
} from '@queuebox/outbox-service';
import {
  brokerRegistered,
  loadBrokerProvider,
  providers,
  type ProviderRegistry,
} from '../providers.js';
import type { Registry } from 'prom-client';
import type { HealthComponent } from '../http/health.js';
import { buildDestinationGates } from './destination-gates.js';

/** What spec §17.1 steps 3–4 build before the database is touched. */
export interface OutboxPlan {
  readonly routing: RoutingPlan;
  readonly router: MessageRouter;
  readonly metrics: Pick<Metrics, 'outbox' | 'retention'>;
  readonly publishers: PublisherRegistry;
}

/**
 * Spec §17.1 steps 3-4. HTTP is built in; a broker type has a publisher when its provider is
 * registered, and a destination of any other type stops the start ("no publisher supports").
 */
export async function planOutbox(
  config: AppConfig,
  transformer: Transformer,
  metrics: Pick<Metrics, 'outbox' | 'retention'>,
  logger: Logger,
  providerRegistry: ProviderRegistry = providers,
): Promise<OutboxPlan> {
  const brokers = registeredBrokers(config, providerRegistry);
  const routing = validateRouting(config, transformer, { publisherTypes: ['http', ...brokers] });
  await checkPrivateAddresses(config);
  const listeners = outboxMetricListeners(metrics.outbox);
  const built: Publisher[] = [
    createHttpPublisher({ config, onResponse: listeners.onResponse, logger }),
  ];
  try {
    for (const type of brokers) {
      const provider = await loadBrokerProvider(type, providerRegistry);
      built.push(provider.createPublisher(config, { logger }));
    }
  } catch (error: unknown) {
    await Promise.allSettled(built.map((publisher) => publisher.close()));
    throw error;
  }
  const publishers = new PublisherRegistry(built);
  return { routing, router: createMessageRouter(routing), metrics, publishers };
}

/** The broker types the destinations name that have a provider in this build. */
export function registeredBrokers(
  config: Pick<AppConfig, 'destinations'>,
  providerRegistry: ProviderRegistry = providers,
): BrokerType[] {
  return [
    ...new Set(
      Object.values(config.destinations)
        .map((destination) => destination.type)
        .filter((type): type is BrokerType => type !== 'http'),
    ),
  ].filter((type) => brokerRegistered(type, providerRegistry));
}

export interface BuiltOutbox {
  readonly poller: OutboxPoller;
  /** Capture modes only: the poller's load, which closes capture's feed while it is busy. */
  readonly claimLoad: ClaimLoad | null;
  readonly retention: RetentionService | null;
  /** Advisory readiness components of the destinations' circuit breakers. */
  readonly gateHealth: readonly HealthComponent[];
}

export function buildOutbox(
  config: AppConfig,
  plan: OutboxPlan,
  database: Database,
  logger: Logger,
  registry: Registry | null = null,
): BuiltOutbox {
  const built = buildDestinationGates(config, { registry, logger });
  const listeners = outboxMetricListeners(plan.metrics.outbox);
  const claimLoad =
    config.outbox.capture.mode === 'polling'
      ? null
      : new ClaimLoad({ rowsPerWindow: config.outbox.batchSize });
  const poller = new OutboxPoller(config.outbox, {
    store: database.outboxStore(),
    router: plan.router,
    pipeline: createTransformPipeline({ onTransformFailure: listeners.onTransformFailure }),
    publishers: plan.publishers,
    metrics: plan.metrics.outbox,
    logger,
    ...(claimLoad ? { claimLoad } : {}),
    gates: built.gates,
  });
  const retention = config.retention.enabled
    ? new RetentionService(config.retention, {
        store: database.retentionStore(),
        metrics: plan.metrics.retention,
        logger,
      })
    : null;
  return { poller, claimLoad, retention, gateHealth: built.health };
}
