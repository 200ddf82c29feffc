/**
 * The NATS publisher runs the publisher contract of @queuebox/testing against a real JetStream
 * stream: `refuse` moves the stream off the subject (every publish meets no responder, 503),
 * `stall` holds the server's answers back in a fault proxy (no PubAck comes), and the contract's
 * timeout is the destination's `timeoutMs`.
 */
import { randomUUID } from 'node:crypto';
import { silentLogger } from '@queuebox/core';
import { createNatsKit, requireService, startFaultProxy } from '@queuebox/testing';
import {
  joinedByLowerCase,
  publisherContract,
  type ReceivedMessage,
} from '@queuebox/testing/contracts';
import { createNatsPublisher } from '../src/index.js';
import {
  destinations,
  natsDestination,
  outboxMessage,
  publishRequest,
  serverAddress,
  viaProxy,
} from './nats-config.js';

publisherContract({
  label: 'NATS JetStream publisher on a stream',
  service: await requireService('nats', 'nats: publisher contract'),
  async open(options, url) {
    const kit = createNatsKit(url, 'qb-pub-contract');
    const subject = kit.subject('orders.created');
    const stream = await kit.stream(kit.name('S'), [kit.subject('orders.>')]);
    const proxy = await startFaultProxy({ target: serverAddress(url) });
    const timeoutMs = options.timeoutMs ?? 30_000;
    const publisher = createNatsPublisher(
      destinations({
        ns: natsDestination(viaProxy(proxy), {
          headers: options.staticHeaders ?? {},
          timeoutMs,
        }),
      }),
      { logger: silentLogger },
    );
    // Connected before any case: `stall` then holds the PubAcks back, not the handshake.
    const warm = outboxMessage({ id: randomUUID() });
    await publisher.publish(publishRequest('ns', subject, warm));
    const manager = await kit.manager();
    const received = async (): Promise<ReceivedMessage[]> =>
      (await kit.messages(stream))
        .map((message) => {
          const headers = joinedByLowerCase(
            Object.entries(message.headers).flatMap(([name, values]) =>
              values.map((value): [string, string] => [name, value]),
            ),
          );
          return { body: message.text, messageId: headers['x-message-id'], headers };
        })
        .filter((message) => message.messageId !== warm.id);
    return {
      publisher,
      destination: 'ns',
      timeoutMs,
      address: subject,
      routingKey: null,
      received,
      async refuse() {
        const info = await manager.streams.info(stream);
        await manager.streams.update(stream, { ...info.config, subjects: [kit.subject('off')] });
      },
      proxy,
      async accept() {
        const info = await manager.streams.info(stream);
        await manager.streams.update(stream, {
          ...info.config,
          subjects: [kit.subject('orders.>')],
        });
      },
      close: () => kit.cleanup(),
    };
  },
});
