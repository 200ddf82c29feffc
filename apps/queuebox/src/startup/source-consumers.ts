import {
  type AppConfig,
  type BrokerType,
  type DeliveryHandler,
  type Logger,
  type SourceConfig,
  type SourceConsumer,
} from '@queuebox/core';
import { createBrokerIngest, type BrokerIngestDeps } from '@queuebox/inbox-service';
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
 * The inbox side of every broker source: inbox-service's broker ingest (filter, extraction,
 * transform, store) on the database's inbox store, compiled per source at build.
 */
export function brokerIngestFor(
  deps: BrokerIngestDeps,
): (name: string, source: BrokerSource) => DeliveryHandler {
  return (name, source) => createBrokerIngest(name, source, deps);
}
