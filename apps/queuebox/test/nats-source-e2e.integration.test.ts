import { createNatsKit, type NatsKit } from '@queuebox/testing';
import { it } from 'vitest';
import { digest } from './e2e-rows.js';
import { e2eServices } from './e2e-services.js';
import { eventually } from './service.js';
import { sourceE2ESuite, type SourceChannel } from './source-e2e-suite.js';

const SUITE = 'app: a NATS JetStream source into the inbox';
const { ready, pgUrl, url } = await e2eServices(SUITE, 'nats');

let kit: NatsKit;
const streams = {} as Record<SourceChannel, string>;
const durable = (channel: SourceChannel) => `queuebox-${channel}`;

/**
 * NATS JetStream: a stream per source on `<channel>.>`; "settled" is read from the durable
 * consumer: nothing pending, nothing awaiting an ack. While the database is gone the source naks.
 */
sourceE2ESuite({
  kind: 'nats',
  title: SUITE,
  ready,
  pgUrl,
  database: 'qb_nats_source',
  outageTestMs: 45_000,
  async open() {
    kit = createNatsKit(url, 'qb-nsource-e2e');
    streams.orders = await kit.stream(kit.name('ORDERS'), [kit.subject('orders.>')]);
    streams.strict = await kit.stream(kit.name('STRICT'), [kit.subject('strict.>')]);
    return {
      yaml: (channel) =>
        [
          `    type: nats`,
          `    servers: ${url}`,
          `    stream: ${streams[channel]}`,
          `    durable: ${durable(channel)}`,
        ].join('\n'),
      send: (channel, body, options) =>
        kit.publish(
          kit.subject(`${channel}.x`),
          body ?? '',
          options?.key === undefined ? {} : { msgId: options.key },
        ),
      outstanding: (channel) => kit.outstanding(streams[channel], durable(channel)),
      settled: (channel) =>
        eventually(async () => (await kit.outstanding(streams[channel], durable(channel))) === 0),
      cleanup: () => kit.cleanup(),
    };
  },
  attributes: {
    title: 'stores a message with its attributes and headers, lists its health, and acks it',
    send: () =>
      kit.publish(
        kit.subject('orders.paid'),
        '{"id": 12345678901234567890, "order": 7, "type": "order.paid"}',
        {
          headers: { 'x-tenant': 't1', 'X-Correlation-Id': 'corr-header' },
        },
      ),
    row: {
      correlation_id: 'corr-header',
      headers: { 'x-tenant': 't1', 'X-Correlation-Id': 'corr-header' },
    },
  },
  ownTests: (env) => {
    it('falls back to Nats-Msg-Id, then to the body digest, for the key', async () => {
      const { scratch, rowByKey } = env();
      await scratch.send('orders', '{"no-id": 1}', { key: 'nats-id-1' });
      await scratch.send('orders', '{"no-id": 2}');
      await rowByKey('orders', 'nats-id-1');
      await rowByKey('orders', digest('{"no-id": 2}'));
      await scratch.settled('orders');
    });
  },
});
