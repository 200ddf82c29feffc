import { silentLogger } from '@queuebox/core';
import { createBrokerIngest } from '@queuebox/inbox-service';
import {
  createRabbitKit,
  publishWithInt64Headers,
  requireService,
  startFaultProxy,
} from '@queuebox/testing';
import { brokerSourceContract, contractIngest } from '@queuebox/testing/contracts';
import { RabbitSourceConsumer } from '../src/index.js';
import { brokerAddress, rabbitSource, viaProxy } from './source-config.js';

const PREFETCH = 4;

/** The broker source contract on RabbitMQ: a fresh durable queue per case, consumed through a proxy. */
brokerSourceContract({
  label: 'RabbitMQ',
  service: await requireService('rabbitmq', 'rabbitmq: broker source contract'),
  int64Headers: true,
  ingest: contractIngest(createBrokerIngest, rabbitSource()),
  async open(url) {
    const kit = await createRabbitKit(url, 'qb-source-contract');
    const queue = await kit.queue(kit.name('q'));
    const proxy = await startFaultProxy({ target: brokerAddress(url) });
    const config = rabbitSource({
      queueName: queue,
      connectionUrl: viaProxy(url, proxy),
      prefetchCount: PREFETCH,
    });
    return {
      consumer: (handler, logger) =>
        new RabbitSourceConsumer('contract', config, { handler, logger: logger ?? silentLogger }),
      probe: {
        publish: (message) =>
          kit.sendToQueue(
            queue,
            typeof message.body === 'string' ? message.body : Buffer.from(message.body),
            {
              ...(message.id === undefined ? {} : { messageId: message.id }),
              ...(message.correlationId === undefined
                ? {}
                : { correlationId: message.correlationId }),
              ...(message.publishTime === undefined
                ? {}
                : { timestamp: Math.floor(message.publishTime.getTime() / 1000) }),
              headers: message.headers ?? {},
            },
          ),
        outstanding: () => kit.messageCount(queue),
        publishInt64Headers: (body, headers) => publishWithInt64Headers(url, queue, body, headers),
      },
      proxy,
      maxInFlight: PREFETCH,
      healthComponent: 'rabbitmq.contract',
      fallbacks: { idempotencyKey: true, correlationId: true, publishTime: 'given' },
      drop: () => kit.cleanup(),
    };
  },
});
