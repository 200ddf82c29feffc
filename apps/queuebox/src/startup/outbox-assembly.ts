import {
  ClaimLoad,
  type AppConfig,
  type BrokerProvider,
  type BrokerType,
  type Database,
  type Logger,
  type Tracing,
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
  destinationLimits,
  outboxMetricListeners,
  PublisherRegistry,
  validateRouting,
  type MessageRouter,
  type RoutingPlan,
  type RoutingValidationOptions,
} from '@queuebox/outbox-service';
import {
  brokerRegistered,
  loadBrokerProvider,
  providers,
  type ProviderRegistry,
} from '../providers.js';
import { buildDestinationGates } from './destination-gates.js';

/** What spec §17.1 steps 3–4 build before the database is touched. */
export interface OutboxPlan {
  readonly routing: RoutingPlan;
  readonly router: MessageRouter;
  readonly metrics: Pick<Metrics, 'outbox' | 'retention'>;
  readonly publishers: PublisherRegistry;
  /** The publishers whose broker closes them with the services, after the poller (spec §17.2). */
  readonly closingWithServices: readonly Publisher[];
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
  const brokers = await destinationBrokers(config, providerRegistry);
  const routing = validateRouting(config, transformer, routingOptions(brokers));
  await checkPrivateAddresses(config);
  const listeners = outboxMetricListeners(metrics.outbox);
  const built: Publisher[] = [
    createHttpPublisher({ config, onResponse: listeners.onResponse, logger }),
  ];
  const closingWithServices: Publisher[] = [];
  try {
    for (const provider of brokers) {
      const publisher = provider.createPublisher(config, { logger });
      built.push(publisher);
      if (provider.descriptor.publisherStops === 'services') closingWithServices.push(publisher);
    }
  } catch (error: unknown) {
    await Promise.allSettled(built.map((publisher) => publisher.close()));
    throw error;
  }
  const publishers = new PublisherRegistry(built);
  return {
    routing,
    router: createMessageRouter(routing),
    metrics,
    publishers,
    closingWithServices,
  };
}

/** The providers of the broker types the destinations name that this build registers. */
export async function destinationBrokers(
  config: Pick<AppConfig, 'destinations'>,
  providerRegistry: ProviderRegistry = providers,
): Promise<BrokerProvider[]> {
  const loaded: BrokerProvider[] = [];
  for (const type of registeredBrokers(config, providerRegistry))
    loaded.push(await loadBrokerProvider(type, providerRegistry));
  return loaded;
}

/** The routing check's view of the brokers: which have a publisher, and their address rules. */
export function routingOptions(brokers: readonly BrokerProvider[]): RoutingValidationOptions {
  return {
    publisherTypes: ['http', ...brokers.map((provider) => provider.name)],
    addressRules: new Map(brokers.map((provider) => [provider.name, provider.descriptor.address])),
  };
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
}

export function buildOutbox(
  config: AppConfig,
  plan: OutboxPlan,
  database: Database,
  logger: Logger,
  tracing?: Tracing,
): BuiltOutbox {
  const listeners = outboxMetricListeners(plan.metrics.outbox);
  const claimLoad =
    config.outbox.capture.mode === 'polling'
      ? null
      : new ClaimLoad({ rowsPerWindow: config.outbox.batchSize });
  const gates = buildDestinationGates(config, { metrics: plan.metrics, logger });
  // Null without any rateLimit; else its gates join the others, so the claim passes over a
  // destination that holds what it can send.
  const limits = destinationLimits(config.outbox, config.destinations, gates);
  const poller = new OutboxPoller(config.outbox, {
    store: database.outboxStore(),
    router: plan.router,
    pipeline: createTransformPipeline({ onTransformFailure: listeners.onTransformFailure }),
    publishers: plan.publishers,
    metrics: plan.metrics.outbox,
    logger,
    ...(claimLoad ? { claimLoad } : {}),
    gates,
    limits,
    ...(tracing ? { tracing } : {}),
  });
  const retention = config.retention.enabled
    ? new RetentionService(config.retention, {
        store: database.retentionStore(),
        metrics: plan.metrics.retention,
        logger,
      })
    : null;
  return { poller, claimLoad, retention };
}
