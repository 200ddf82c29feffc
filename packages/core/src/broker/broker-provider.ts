/**
 * A broker package's `provider`: its descriptor, its publisher factory and its source class, in
 * the shape the app's registry checks (`kind`, `name`, both factories).
 */
import type { AppConfig, SourceConfig } from '../config/app-config.js';
import type { BrokerDeps, BrokerDescriptor, BrokerProvider, BrokerType } from '../ports/broker.js';
import type { Publisher } from '../ports/publisher.js';
import type { SourceConsumer, SourceConsumerDeps } from '../ports/source-consumer.js';

export function brokerProvider<T extends BrokerType>(
  descriptor: BrokerDescriptor<T>,
  createPublisher: (config: AppConfig, deps: BrokerDeps) => Publisher,
  Source: new (
    name: string,
    source: Extract<SourceConfig, { readonly type: T }>,
    deps: SourceConsumerDeps,
  ) => SourceConsumer,
): BrokerProvider<T> {
  return {
    kind: 'broker',
    name: descriptor.name,
    descriptor,
    createPublisher: (config, deps) => createPublisher(config, deps),
    createSourceConsumer: (name, source, deps) => new Source(name, source, deps),
  };
}
