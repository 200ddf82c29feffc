import { type DeliveryHandler, type Logger, silentLogger } from '@queuebox/core';
import {
  createRabbitKit,
  eventually,
  publishWithInt64Headers,
  recordingHandler,
  requireService,
  startFaultProxy,
  warningLogger,
  serviceUrl,
  suiteScope,
} from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { RabbitSourceConsumer } from '../src/index.js';
import { brokerAddress, rabbitSource, viaProxy } from './source-config.js';

const rabbit = await requireService('rabbitmq', 'rabbitmq: source consumer');
const url = serviceUrl(rabbit);

/**
 * What the RabbitMQ source does beyond the broker contract: AMQP's typed headers and properties,
 * the queue check and `declareQueue`, a broker that is down at start, a queue deleted under the
 * consumer, and the backoff that keeps a store outage from becoming a redelivery loop.
 */
describe.skipIf(!rabbit.available)('RabbitMQ source consumer', () => {
  const { kit, closing } = suiteScope(() => createRabbitKit(url, 'qb-source'));

  const consumer = (
    handler: DeliveryHandler,
    overrides: Parameters<typeof rabbitSource>[0],
    logger: Logger = silentLogger,
  ) => {
    const created = new RabbitSourceConsumer(
      'orders',
      rabbitSource({ connectionUrl: url, ...overrides }),
      {
        handler,
        logger,
      },
    );
    return closing(created);
  };

  it('converts typed AMQP headers and reads message_id, correlation_id and timestamp', async () => {
    const queue = await kit.queue(kit.name('typed'));
    const { handler, deliveries } = recordingHandler();
    await consumer(handler, { queueName: queue }).start();
    await kit.sendToQueue(queue, '{"id":1}', {
      messageId: 'm-1',
      correlationId: 'c-1',
      timestamp: 1_700_000_000,
      headers: {
        text: 'café',
        int: 1234567,
        double: 2.5,
        flag: false,
        none: null,
        table: { a: [1, 'b'] },
        bytes: Buffer.from([0xc3, 0x28]),
        at: { '!': 'timestamp', value: 1_700_000_000 },
      },
    });
    const [delivery] = await eventually(() => deliveries.length > 0 && deliveries);
    expect(delivery!.headers).toEqual({
      text: 'café',
      int: '1234567',
      double: '2.5',
      flag: 'false',
      table: '{"a":[1,"b"]}',
      bytes: 'base64:wyg=',
      at: '2023-11-14T22:13:20Z',
    });
    expect(delivery!.fallbacks).toEqual({
      idempotencyKey: 'm-1',
      correlationId: 'c-1',
      publishTime: new Date('2023-11-14T22:13:20Z'),
    });
  });

  it('keeps every digit of 64-bit integer headers: 2^53+1, 2^62, -2^63 and 2^63-1', async () => {
    const queue = await kit.queue(kit.name('int64'));
    const { handler, deliveries } = recordingHandler();
    await consumer(handler, { queueName: queue }).start();
    await publishWithInt64Headers(url, queue, '{"id":1}', {
      above: 2n ** 53n + 1n,
      snowflake: 2n ** 62n,
      min: -(2n ** 63n),
      max: 2n ** 63n - 1n,
      small: 42n,
    });
    const [delivery] = await eventually(() => deliveries.length > 0 && deliveries);
    expect(delivery!.headers).toEqual({
      above: '9007199254740993',
      snowflake: '4611686018427387904',
      min: '-9223372036854775808',
      max: '9223372036854775807',
      small: '42',
    });
  });

  it('refuses to start on a missing queue without declareQueue, naming it and the key', async () => {
    const missing = kit.name('missing');
    const source = consumer(recordingHandler().handler, { queueName: missing });
    await expect(source.start()).rejects.toThrow(
      `sources.orders: the queue '${missing}' does not exist. QueueBox does not declare source queues by default: declare the queue, or set sources.orders.declareQueue: true and QueueBox declares it (durable).`,
    );
    expect(source.isHealthy()).toBe(false);
  });

  it('declares the queue durable with declareQueue and consumes it', async () => {
    const queue = kit.name('declared');
    kit.adopt('queue', queue);
    const { handler, deliveries } = recordingHandler();
    const source = consumer(handler, { queueName: queue, declareQueue: true });
    await source.start();
    expect(source.isHealthy()).toBe(true);
    const declared = await (await kit.channel()).checkQueue(queue);
    expect(declared.consumerCount).toBe(1);
    await kit.sendToQueue(queue, '{"id":1}');
    await eventually(() => deliveries.length === 1);
  });

  it('starts while the broker is unreachable, reports down, and consumes once it answers', async () => {
    const queue = await kit.queue(kit.name('late'));
    const proxy = await startFaultProxy({ target: brokerAddress(url) });
    closing(proxy);
    proxy.refuse();
    const { handler, deliveries } = recordingHandler();
    const { logger, lines } = warningLogger();
    const source = consumer(
      handler,
      { queueName: queue, connectionUrl: viaProxy(url, proxy) },
      logger,
    );
    await source.start();
    expect(source.isHealthy()).toBe(false);
    expect(lines[0]).toMatch(
      /^Source 'orders' cannot reach RabbitMQ yet, so it keeps trying in the background\. Reason: /,
    );
    expect(lines.join('\n')).not.toContain('guest:guest');
    await kit.sendToQueue(queue, '{"id":1}');
    proxy.restore();
    await eventually(() => source.isHealthy());
    await eventually(() => deliveries.length === 1);
  });

  it('goes down when its queue is deleted and consumes again once the queue is back', async () => {
    const queue = await kit.queue(kit.name('deleted'));
    const { handler, deliveries } = recordingHandler();
    const source = consumer(handler, { queueName: queue });
    await source.start();
    await (await kit.channel()).deleteQueue(queue);
    await eventually(() => !source.isHealthy());
    await kit.queue(queue);
    await eventually(() => source.isHealthy(), 15_000);
    await kit.sendToQueue(queue, '{"id":1}');
    await eventually(() => deliveries.length === 1);
  });

  it('backs off before each requeue while the handler cannot store, so an outage is no hot loop', async () => {
    const queue = await kit.queue(kit.name('backoff'));
    const { handler, deliveries } = recordingHandler(() => ({
      settle: 'retry',
      reason: 'the store is down',
    }));
    const source = consumer(handler, { queueName: queue, prefetchCount: 1 });
    await source.start();
    await kit.sendToQueue(queue, '{"id":1}');
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    // 100, 200, 400, 800 ms: about five deliveries in 1.6 s, where an immediate requeue makes thousands.
    expect(deliveries.length).toBeGreaterThanOrEqual(3);
    expect(deliveries.length).toBeLessThanOrEqual(6);
  });
});
