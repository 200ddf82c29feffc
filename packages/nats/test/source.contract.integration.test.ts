import { silentLogger } from '@queuebox/core';
import { createBrokerIngest } from '@queuebox/inbox-service';
import { createNatsKit, requireService, startFaultProxy } from '@queuebox/testing';
import { brokerSourceContract, contractIngest } from '@queuebox/testing/contracts';
import { NatsSourceConsumer } from '../src/index.js';
import { natsSource, serverAddress, viaProxy } from './nats-config.js';

const BATCH = 4;

/**
 * The broker source contract on NATS JetStream: a fresh stream per case, read through a durable
 * pull consumer the source creates, through a proxy. `ackWaitMs` is short so that a message whose
 * ack was dropped comes back within the contract's wait.
 */
brokerSourceContract({
  label: 'NATS JetStream',
  service: await requireService('nats', 'nats: broker source contract'),
  ingest: contractIngest(createBrokerIngest, natsSource()),
  async open(url) {
    const kit = createNatsKit(url, 'qb-src-contract');
    const stream = await kit.stream(kit.name('S'), [kit.subject('in.>')]);
    const durable = 'contract';
    const proxy = await startFaultProxy({ target: serverAddress(url) });
    const config = natsSource({
      servers: viaProxy(proxy),
      stream,
      durable,
      batchSize: BATCH,
      ackWaitMs: 2_000,
    });
    return {
      consumer: (handler, logger) =>
        new NatsSourceConsumer('contract', config, { handler, logger: logger ?? silentLogger }),
      probe: {
        async publish(message) {
          await kit.publish(kit.subject('in.orders'), message.body, {
            headers: message.headers ?? {},
            ...(message.id === undefined ? {} : { msgId: message.id }),
          });
        },
        outstanding: () => kit.outstanding(stream, durable),
      },
      proxy,
      maxInFlight: BATCH,
      healthComponent: 'nats.contract',
      fallbacks: { idempotencyKey: true, correlationId: false, publishTime: 'broker' },
      drop: () => kit.cleanup(),
    };
  },
});
