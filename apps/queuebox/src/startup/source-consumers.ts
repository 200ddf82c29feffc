import {
  QueueBoxError,
  type AppConfig,
  type BrokerType,
  type DeliveryHandler,
  type Logger,
  type SourceConfig,
  type SourceConsumer,
} from '@queuebox/core';
import type { HealthComponent } from '../http/health.js';
import { loadBrokerProvider, providers, type ProviderRegistry } from '../providers.js';

/** Spec §17.1 step 10 and §11.4: RabbitMQ consumers, then Kafka, then NATS. */
const BROKER_ORDER: readonly BrokerType[] = ['rabbitmq', 'kafka', 'nats'];

type BrokerSource = Exclude<SourceConfig, { readonly type: 'http' }>;

export interface SourceConsumerDeps {
  /** The inbox side of each broker source (filter, extraction, transform, store). */
  readonly handlerFor: (name: string, source: BrokerSource) => DeliveryHandler;
  readonly logger: Logger;
}

/**
 * Builds one consumer per broker source from its broker's provider, in the start order of spec
 * §17.1 step 10. `refuseUnbuiltFeatures` has already stopped a kind the registry lacks.
 */
export async function buildSourceConsumers(
  config: Pick<AppConfig, 'sources'>,
  deps: SourceConsumerDeps,
  registry: ProviderRegistry = providers,
): Promise<SourceConsumer[]> {
  const consumers: SourceConsumer[] = [];
  for (const type of BROKER_ORDER) {
    const sources = Object.entries(config.sources).filter(
      (entry): entry is [string, BrokerSource] => entry[1].type === type,
    );
    if (sources.length === 0) continue;
    const provider = await loadBrokerProvider(type, registry);
    for (const [name, source] of sources) {
      const consumer = provider.createSourceConsumer(name, source, {
        handler: deps.handlerFor(name, source),
        logger: deps.logger.child({ source: name }),
      });
      consumers.push(consumer);
    }
  }
  return consumers;
}

/** The readiness components of §11.4, listed after the inbox relay in the same order. */
export function sourceHealth(consumers: readonly SourceConsumer[]): HealthComponent[] {
  return consumers.map((consumer) => ({
    name: consumer.healthComponent,
    check: () => consumer.isHealthy(),
  }));
}

/**
 * Until the inbox side of broker sources lands with the first broker package, a source whose
 * broker is registered still stops the start (naming it) instead of being consumed by nothing.
 */
export function brokerIngestNotBuilt(name: string, source: BrokerSource): DeliveryHandler {
  throw new QueueBoxError(
    'config_invalid',
    `sources.${name}: the inbox pipeline for type ${source.type} sources is not part of this build of QueueBox; use an http source`,
  );
}
