/**
 * What the Kafka end-to-end files share. `kafkaSuite` finds PostgreSQL and Kafka the way the
 * Kafka contract suites do, under one label, so where either is missing the run prints
 * `SKIPPED kafka: <suite> (<n> tests): <reason>`. `kafkaThrough` is a provider registry whose
 * Kafka clients reach the broker through fault proxies: kafkajs dials the address the broker
 * advertises after the first metadata answer, so a proxy named in `bootstrapServers` would carry
 * only that answer; kafkajs's `socketFactory` dials the proxy for every broker instead.
 */
import {
  publishFailed,
  type BrokerProvider,
  type DeliveryHandler,
  type DeliveryVerdict,
  type DestinationConfig,
  type Publisher,
  type SourceDelivery,
} from '@queuebox/core';
import { createKafkaPublisher, descriptor, KafkaSourceConsumer } from '@queuebox/kafka';
import { requireService, viaProxy, type FaultProxy } from '@queuebox/testing';
import { broker, providers, type ProviderRegistry } from '../src/providers.js';

export interface KafkaSuite {
  readonly ready: boolean;
  /** Why the suite is skipped, for its title (`skipTitle`), or false where it runs. */
  readonly skip: string | false;
  readonly pgUrl: string;
  readonly brokers: string;
}

/** Both services of a Kafka end-to-end file, or the printed reason its `tests` are skipped. */
export async function kafkaSuite(suite: string, tests: number): Promise<KafkaSuite> {
  const label = `kafka: ${suite} (${tests} tests)`;
  const pg = await requireService('postgres', label);
  const kafka = await requireService('kafka', label);
  const missing = [pg, kafka].find((found) => !found.available);
  return {
    ready: missing === undefined,
    skip: missing === undefined || missing.available ? false : missing.reason,
    pgUrl: pg.available ? pg.url : '',
    brokers: kafka.available ? kafka.url : '',
  };
}

/** Which destinations and sources (by name) reach Kafka through which proxy; others directly. */
export interface KafkaRoutes {
  readonly destinations?: Readonly<Record<string, FaultProxy>>;
  readonly sources?: Readonly<Record<string, FaultProxy>>;
  /** Wraps a source's inbox handler (by source name): a test sees each delivery and verdict. */
  readonly handlers?: Readonly<Record<string, (handler: DeliveryHandler) => DeliveryHandler>>;
}

/** The app's provider registry with a Kafka provider that routes sockets as `routes` says. */
export function kafkaThrough(routes: KafkaRoutes): ProviderRegistry {
  const provider: BrokerProvider<'kafka'> = {
    kind: 'broker',
    name: 'kafka',
    descriptor,
    createPublisher(config, deps) {
      // One publisher per proxy (and one for the direct destinations), behind one Publisher.
      const groups = new Map<FaultProxy | undefined, Record<string, DestinationConfig>>();
      for (const [name, destination] of Object.entries(config.destinations)) {
        const proxy = routes.destinations?.[name];
        groups.set(proxy, { ...groups.get(proxy), [name]: destination });
      }
      const publishers = [...groups].map(([proxy, destinations]) =>
        createKafkaPublisher(
          { destinations },
          deps,
          proxy === undefined ? {} : { socketFactory: viaProxy(proxy) },
        ),
      );
      return routedPublisher(publishers);
    },
    createSourceConsumer(name, source, deps) {
      const proxy = routes.sources?.[name];
      const wrap = routes.handlers?.[name];
      return new KafkaSourceConsumer(
        name,
        source,
        wrap === undefined ? deps : { ...deps, handler: wrap(deps.handler) },
        proxy === undefined ? {} : { socketFactory: viaProxy(proxy) },
      );
    },
  };
  return { ...providers, kafka: broker('@queuebox/kafka', () => Promise.resolve({ provider })) };
}

/**
 * Wraps a source's inbox handler so a test sees each delivery with the verdict the inbox gave
 * it, before the source settles it (for `KafkaRoutes.handlers`).
 */
export function observing(
  seen: (delivery: SourceDelivery, verdict: DeliveryVerdict) => void,
): (handler: DeliveryHandler) => DeliveryHandler {
  return (handler) => ({
    ...handler,
    handle: async (delivery) => {
      const verdict = await handler.handle(delivery);
      seen(delivery, verdict);
      return verdict;
    },
  });
}

function routedPublisher(publishers: readonly Publisher[]): Publisher {
  return {
    type: 'kafka',
    supports: (destination) => publishers.some((p) => p.supports(destination)),
    publish(request) {
      const publisher = publishers.find((p) => p.supports(request.destination));
      return publisher === undefined
        ? Promise.resolve({
            ok: false,
            error: publishFailed(`No publisher supports destination '${request.destination}'`),
          })
        : publisher.publish(request);
    },
    async close() {
      await Promise.all(publishers.map((p) => p.close()));
    },
  };
}
