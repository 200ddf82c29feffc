import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  silentLogger,
  systemClock,
  type BrokerProvider,
  type DeliveryHandler,
  type Publisher,
  type SourceConsumer,
} from '@queuebox/core';
import { createJsonataTransformer } from '@queuebox/outbox-service';
import { descriptor as natsDescriptor } from '@queuebox/nats/descriptor';
import { descriptor as rabbitDescriptor } from '@queuebox/rabbitmq/descriptor';
import { Registry } from 'prom-client';
import { registerMetricFamilies } from '../observability/metric-families.js';
import { testConfig } from '../../test/app-config.js';
import { broker, type ProviderRegistry } from '../providers.js';
import { unbuiltFeatureProblems } from './unbuilt-guard.js';
import { planOutbox } from './outbox-assembly.js';
import { brokerIngestFor, buildSourceConsumers, sourceHealth } from './source-consumers.js';

const metrics = () => registerMetricFamilies(new Registry());
const DB = { jdbcUrl: 'jdbc:postgresql://127.0.0.1:5432/unused', user: 'postgres' };

const YAML = `
destinations:
  web:
    type: http
    baseUrl: http://127.0.0.1:9
  events:
    type: rabbitmq
    url: "amqp://guest:guest@127.0.0.1:5672"
    exchange: events
routes:
  - topicPattern: "order.*"
    destination: events
sources:
  hook:
    type: http
    path: /hook
    topic: hooked
    idempotencyKeyPath: $.id
  nats-in:
    type: nats
    servers: nats://127.0.0.1:4222
    stream: S
    durable: d
  rabbit-b:
    type: rabbitmq
    queueName: b
    connectionUrl: "amqp://guest:guest@127.0.0.1:5672"
  rabbit-a:
    type: rabbitmq
    queueName: a
    connectionUrl: "amqp://guest:guest@127.0.0.1:5672"
`;

/** A broker provider that records what the app asked of it. */
function recordingBroker(name: 'rabbitmq' | 'nats') {
  const consumers: { name: string; handler: DeliveryHandler }[] = [];
  const publishers: Publisher[] = [];
  const provider: BrokerProvider = {
    kind: 'broker',
    name,
    descriptor: name === 'rabbitmq' ? rabbitDescriptor : natsDescriptor,
    createPublisher: () => {
      const publisher: Publisher = {
        type: name,
        supports: () => true,
        publish: () => Promise.resolve({ ok: true }),
        close: () => Promise.resolve(),
      };
      publishers.push(publisher);
      return publisher;
    },
    createSourceConsumer: (source, _config, deps): SourceConsumer => {
      consumers.push({ name: source, handler: deps.handler });
      return {
        source,
        healthComponent: `${name}.${source}`,
        start: () => Promise.resolve(),
        isHealthy: () => source !== 'rabbit-b',
        close: () => Promise.resolve(),
      };
    },
  };
  return { provider, consumers, publishers };
}

describe('broker kinds through the provider registry', () => {
  const config = testConfig(DB, YAML);
  const rabbit = recordingBroker('rabbitmq');
  const nats = recordingBroker('nats');
  const registry: ProviderRegistry = {
    nats: broker('@queuebox/nats', () => Promise.resolve({ provider: nats.provider })),
    rabbitmq: broker('@queuebox/rabbitmq', () => Promise.resolve({ provider: rabbit.provider })),
  };

  it('stops the start for a source of a kind this build has no provider for', () => {
    expect(unbuiltFeatureProblems(config, {})).toEqual([
      'sources.nats-in: type nats sources are not available in this build of QueueBox; use an http source',
      'sources.rabbit-b: type rabbitmq sources are not available in this build of QueueBox; use an http source',
      'sources.rabbit-a: type rabbitmq sources are not available in this build of QueueBox; use an http source',
    ]);
    expect(unbuiltFeatureProblems(config, { rabbitmq: registry.rabbitmq! })).toEqual([
      'sources.nats-in: type nats sources are not available in this build of QueueBox; use an http source',
    ]);
    expect(unbuiltFeatureProblems(config, registry)).toEqual([]);
  });

  it('stops the start for a destination of a kind this build has no provider for', async () => {
    await expect(
      planOutbox(config, createJsonataTransformer(), metrics(), silentLogger, {}),
    ).rejects.toThrow(
      "destinations.events: no publisher supports destination 'events' of type 'rabbitmq'",
    );
  });

  it("builds a registered broker's publisher and routes its destinations to it", async () => {
    const plan = await planOutbox(
      config,
      createJsonataTransformer(),
      metrics(),
      silentLogger,
      registry,
    );
    expect(plan.publishers.types).toEqual(['http', 'rabbitmq']);
    expect(rabbit.publishers).toHaveLength(1);
    // NATS is registered but no destination uses it: no connection is opened for it.
    expect(nats.publishers).toHaveLength(0);
    expect(plan.publishers.publisherFor('rabbitmq', 'events')).toBe(rabbit.publishers[0]);
    for (const publisher of plan.publishers) await publisher.close();
  });

  it('builds one consumer per broker source, RabbitMQ before NATS, with their health', async () => {
    const handlers = new Map<string, DeliveryHandler>();
    const consumers = await buildSourceConsumers(
      config,
      {
        handlerFor: (name) => {
          const handler: DeliveryHandler = {
            handle: () => Promise.resolve({ settle: 'ack', outcome: 'stored' }),
          };
          handlers.set(name, handler);
          return handler;
        },
        logger: silentLogger,
      },
      registry,
    );
    expect(consumers.map((c) => c.healthComponent)).toEqual([
      'rabbitmq.rabbit-b',
      'rabbitmq.rabbit-a',
      'nats.nats-in',
    ]);
    expect(rabbit.consumers.map((c) => c.handler)).toEqual([
      handlers.get('rabbit-b'),
      handlers.get('rabbit-a'),
    ]);
    const health = sourceHealth(consumers);
    expect(health.map((h) => [h.name, h.check()])).toEqual([
      ['rabbitmq.rabbit-b', false],
      ['rabbitmq.rabbit-a', true],
      ['nats.nats-in', true],
    ]);
  });

  it('compiles the inbox side of each broker source when it builds the consumers', async () => {
    const broken = testConfig(DB, `${YAML}    eventTypeExpression: "$$$("\n`);
    await expect(
      buildSourceConsumers(
        broken,
        {
          handlerFor: brokerIngestFor({
            store: {} as never,
            transformer: createJsonataTransformer(),
            logger: silentLogger,
            metrics: metrics().inbox,
            clock: systemClock,
            newId: randomUUID,
          }),
          logger: silentLogger,
        },
        registry,
      ),
    ).rejects.toThrow(
      /^sources\.rabbit-a\.eventTypeExpression: the JSONata expression does not compile/,
    );
  });
});
