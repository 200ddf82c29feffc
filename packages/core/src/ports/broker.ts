import type { AppConfig, DestinationType, SourceConfig } from '../config/app-config.js';
import type { Logger } from './logger.js';
import type { Publisher } from './publisher.js';
import type { SourceConsumer, SourceConsumerDeps } from './source-consumer.js';

/** The broker kinds: every destination and source type but `http`. */
export type BrokerType = Exclude<DestinationType, 'http'>;

export interface BrokerDeps {
  readonly logger: Logger;
}

/**
 * What a broker package (`@queuebox/rabbitmq`, `@queuebox/kafka`, `@queuebox/nats`) exports as
 * `provider`. The app finds it through its provider registry (a dynamic import), so the shape
 * is checked at run time too: `kind`, `name` and both factories.
 */
export interface BrokerProvider<T extends BrokerType = BrokerType> {
  readonly kind: 'broker';
  readonly name: T;
  /** One publisher for every destination of this type (§6.2-§6.4); its `type` is `name`. */
  createPublisher(config: AppConfig, deps: BrokerDeps): Publisher;
  /** One consumer for one source of this type (§7.6-§7.8). */
  createSourceConsumer(
    name: string,
    source: Extract<SourceConfig, { readonly type: T }>,
    deps: SourceConsumerDeps,
  ): SourceConsumer;
}
