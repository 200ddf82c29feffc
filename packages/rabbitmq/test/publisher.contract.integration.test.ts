/**
 * The RabbitMQ publisher runs the publisher contract of @queuebox/testing against a real
 * exchange and bound queue: `refuse` unbinds the queue (every publish is returned, unroutable),
 * `stall` holds the broker's answers back in a fault proxy (no confirm comes), and the
 * contract's timeout is the confirm wait (5000 ms in production, the `confirmTimeoutMs` seam here).
 */
import { silentLogger } from '@queuebox/core';
import { createRabbitKit, requireService, startFaultProxy } from '@queuebox/testing';
import {
  joinedByLowerCase,
  publisherContract,
  type ReceivedMessage,
} from '@queuebox/testing/contracts';
import { CONFIRM_TIMEOUT_MS, createRabbitPublisher } from '../src/index.js';
import { destinations, publishRequest, rabbitDestination } from './publish-requests.js';
import { brokerAddress, viaProxy } from './source-config.js';

publisherContract({
  label: 'RabbitMQ publisher on a bound queue',
  service: await requireService('rabbitmq', 'rabbitmq: publisher contract'),
  async open(options, url) {
    const kit = await createRabbitKit(url, 'qb-publisher-contract');
    const exchange = await kit.exchange(kit.name('x'));
    const queue = await kit.queue(kit.name('q'), { exchange, patterns: ['orders.#'] });
    const collector = await kit.collect(queue);
    const proxy = await startFaultProxy({ target: brokerAddress(url) });
    const timeoutMs = options.timeoutMs ?? CONFIRM_TIMEOUT_MS;
    const publisher = createRabbitPublisher(
      destinations({
        mq: rabbitDestination(viaProxy(url, proxy), { headers: options.staticHeaders ?? {} }),
      }),
      { logger: silentLogger },
      { confirmTimeoutMs: timeoutMs },
    );
    // Connected and the exchange declared before any case: `stall` then holds the confirms back
    // on an open channel, not the handshake. The warm-up is returned (no queue binds `warm`).
    await publisher.publish(publishRequest('mq', exchange, 'warm'));
    const received = (): Promise<ReceivedMessage[]> =>
      Promise.resolve(
        collector.messages.map((message) => ({
          body: message.text,
          messageId: message.properties.messageId as string | undefined,
          headers: joinedByLowerCase(
            Object.entries(message.headers).map(([name, value]) => [
              name,
              typeof value === 'string' ? value : String(value),
            ]),
          ),
        })),
      );
    return {
      publisher,
      destination: 'mq',
      timeoutMs,
      address: exchange,
      routingKey: 'orders.created',
      received,
      async refuse() {
        await (await kit.channel()).unbindQueue(queue, exchange, 'orders.#');
      },
      proxy,
      async accept() {
        await (await kit.channel()).bindQueue(queue, exchange, 'orders.#');
      },
      close: () => kit.cleanup(),
    };
  },
});
