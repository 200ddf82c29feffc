import type { AppConfig, DestinationType, SourceConfig } from '../config/app-config.js';
import type { BrokerConfigBlock, ConfigKit } from '../config/config-kit.js';
import type { Logger } from './logger.js';
import type { Publisher } from './publisher.js';
import type { SourceConsumer, SourceConsumerDeps } from './source-consumer.js';

/** The broker kinds: every destination and source type but `http`. */
export type BrokerType = Exclude<DestinationType, 'http'>;

export interface BrokerDeps {
  readonly logger: Logger;
}

/**
 * Where a broker destination's address comes from (spec §5.2): a template key (`exchange`) and
 * the key naming a row column that wins over it (`exchangeFrom`), plus how the broker takes a
 * routing key. The outbox service reads a destination's keys through these names only, so the
 * broker's own keys stay in its package.
 */
export interface BrokerAddressRules {
  /** The destination key holding the address template. */
  readonly templateKey: string;
  /** The destination key naming a row column that, when set, replaces the template. */
  readonly fromKey: string;
  /**
   * Whether the broker carries a routing key (a routing key proper, or a record key):
   * null when it carries none. When it does, a route's `routingKeyTemplate` wins and
   * `ownTemplateKey` names the destination key rendered otherwise (null: none is rendered).
   */
  readonly routingKey: { readonly ownTemplateKey: string | null } | null;
}

/**
 * What a broker says about itself beyond its two factories: the facts the app and the outbox
 * service need to place it among the others, kept in a module of the broker package that loads
 * no client library.
 */
export interface BrokerDescriptor<T extends BrokerType = BrokerType> {
  readonly name: T;
  /** Its sources' place in the start (spec §17.1 step 10): the lower number starts first. */
  readonly sourceStartOrder: number;
  /**
   * When its publisher closes (spec §17.2): `resources` with the connections at the end,
   * `services` with the services, right after the outbox poller (a publisher that still holds
   * buffered sends must flush them before the pool goes).
   */
  readonly publisherStops: 'resources' | 'services';
  readonly address: BrokerAddressRules;
  /**
   * Its configuration block (the keys of its destinations and sources, their rules, assembly and
   * key texts), built from the kit `@queuebox/config` lends, so config names no broker.
   */
  config(kit: ConfigKit): BrokerConfigBlock;
}

/**
 * What a broker package (`@queuebox/<broker>`) exports as
 * `provider`. The app finds it through its provider registry (a dynamic import), so the shape
 * is checked at run time too: `kind`, `name`, `descriptor` and both factories.
 */
export interface BrokerProvider<T extends BrokerType = BrokerType> {
  readonly kind: 'broker';
  readonly name: T;
  readonly descriptor: BrokerDescriptor<T>;
  /** One publisher for every destination of this type (§6.2-§6.4); its `type` is `name`. */
  createPublisher(config: AppConfig, deps: BrokerDeps): Publisher;
  /** One consumer for one source of this type (§7.6-§7.8). */
  createSourceConsumer(
    name: string,
    source: Extract<SourceConfig, { readonly type: T }>,
    deps: SourceConsumerDeps,
  ): SourceConsumer;
}
