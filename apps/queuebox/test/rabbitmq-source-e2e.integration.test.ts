import { createRabbitKit, type RabbitKit } from '@queuebox/testing';
import { it } from 'vitest';
import { digest } from './e2e-rows.js';
import { e2eServices } from './e2e-services.js';
import { eventually } from './service.js';
import { sourceE2ESuite, type SourceChannel } from './source-e2e-suite.js';

const SUITE = 'app: a RabbitMQ source into the inbox';
const { ready, pgUrl, url } = await e2eServices(SUITE, 'rabbitmq');

let kit: RabbitKit;
const queues = {} as Record<SourceChannel, string>;

/** RabbitMQ: a durable queue per source; "settled" is the queue drained (every message acked). */
sourceE2ESuite({
  kind: 'rabbitmq',
  title: SUITE,
  ready,
  pgUrl,
  database: 'qb_rabbit_source',
  outageTestMs: 45_000,
  async open() {
    kit = await createRabbitKit(url, 'qb-source-e2e');
    queues.orders = await kit.queue(kit.name('orders'));
    queues.strict = await kit.queue(kit.name('strict'));
    return {
      yaml: (channel) =>
        [`    type: rabbitmq`, `    queueName: ${queues[channel]}`, `    connectionUrl: ${url}`]
          .concat(channel === 'orders' ? ['    prefetchCount: 10'] : [])
          .join('\n'),
      send: (channel, body, options) =>
        kit.sendToQueue(
          queues[channel],
          body ?? '',
          options?.key === undefined ? {} : { messageId: options.key },
        ),
      settled: (channel) => eventually(async () => (await kit.messageCount(queues[channel])) === 0),
      cleanup: () => kit.cleanup(),
    };
  },
  attributes: {
    title:
      'stores a message with its attributes and converted headers, lists its health, and acks it',
    send: () =>
      kit.sendToQueue(
        queues.orders,
        '{"id": 12345678901234567890, "order": 7, "type": "order.paid"}',
        {
          correlationId: 'corr-property',
          headers: {
            'x-tenant': 't1',
            'x-count': 3,
            'x-flag': true,
            'x-none': null,
            'x-table': { a: 1 },
          },
        },
      ),
    row: {
      correlation_id: 'corr-property',
      headers: { 'x-tenant': 't1', 'x-count': '3', 'x-flag': 'true', 'x-table': '{"a":1}' },
    },
  },
  ownTests: (env) => {
    it('falls back to the message id, then to the body digest, for the key', async () => {
      const { scratch, rowByKey } = env();
      await scratch.send('orders', '{"no-id": 1}', { key: 'amqp-id-1' });
      await scratch.send('orders', '{"no-id": 2}');
      await rowByKey('orders', 'amqp-id-1');
      await rowByKey('orders', digest('{"no-id": 2}'));
      await scratch.settled('orders');
    });
  },
});
