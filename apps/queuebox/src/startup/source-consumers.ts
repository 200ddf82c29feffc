import {
  type AppConfig,
  type BrokerProvider,
  type BrokerType,
  type DeliveryHandler,
  type Logger,
  type SourceConfig,
  type SourceConsumer,
} from '@queuebox/core';
import { createBrokerIngest, type BrokerIngestDeps } from '@queuebox/inbox-service';
import type { HealthComponent } from '../http/health.js';
import { loadBrokerProvider, providers, type ProviderRegistry } from '../providers.js';

type BrokerSource = Exclude<SourceConfig, { readonly type: 'http' }>;

export interface SourceConsumerDeps {
  /** The inbox side of each broker source (filter, extraction, transform, store). */
  readonly handlerFor: (name: string, source: BrokerSource) => DeliveryHandler;
  readonly logger: Logger;
}

/**
 * Builds one consumer per broker source from its broker's provider, in the start order of spec
 * §17.1 step 10, which each broker's descriptor gives (`sourceStartOrder`); sources of one
 * broker keep their configuration order. `refuseUnbuiltFeatures` has already stopped a kind the
 * registry lacks.
 */
export async function buildSourceConsumers(
  config: Pick<AppConfig, 'sources'>,
  deps: SourceConsumerDeps,
  registry: ProviderRegistry = providers,
): Promise<SourceConsumer[]> {
  const byType = new Map<BrokerType, [string, BrokerSource][]>();
  for (const entry of Object.entries(config.sources)) {
    const source = entry[1];
    if (source.type === 'http') continue;
    byType.set(source.type, [...(byType.get(source.type) ?? []), [entry[0], source]]);
  }
  const brokers: BrokerProvider[] = [];
  for (const type of byType.keys()) brokers.push(await loadBrokerProvider(type, registry));
  brokers.sort((a, b) => a.descriptor.sourceStartOrder - b.descriptor.sourceStartOrder);
  const consumers: SourceConsumer[] = [];
  for (const provider of brokers) {
    for (const [name, source] of byType.get(provider.name) ?? []) {
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
