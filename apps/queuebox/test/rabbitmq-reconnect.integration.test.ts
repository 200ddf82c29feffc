import { createRabbitKit, type FaultProxy } from '@queuebox/testing';
import { reconnectSuite } from './reconnect-suite.js';
import { e2eServices } from './e2e-services.js';
import { eventually } from './service.js';

const SUITE = 'app: RabbitMQ connections cut mid-run';
const { ready, pgUrl, url, target } = await e2eServices(SUITE, 'rabbitmq');

/** RabbitMQ: the proxies stand in the AMQP URLs; publisher confirms, no duplicate window. */
reconnectSuite({
  kind: 'rabbitmq',
  title: SUITE,
  ready,
  pgUrl,
  database: 'qb_rabbit_cut',
  target,
  rejoinMs: 20_000,
  testMs: 60_000,
  destinationCutMs: 500,
  slowAcks: false,
  keyedRows: false,
  deduplicates: false,
  async open({ toSource, toDestination }) {
    const kit = await createRabbitKit(url, 'qb-reconnect');
    const via = (proxy: FaultProxy) => {
      const proxied = new URL(url);
      proxied.hostname = proxy.host;
      proxied.port = String(proxy.port);
      return proxied.toString();
    };
    const exchange = await kit.exchange(kit.name('events'));
    const delivered = await kit.collect(
      await kit.queue(kit.name('events.q'), { exchange, patterns: ['#'] }),
    );
    const queue = await kit.queue(kit.name('in'));
    return {
      destinationYaml: `    type: rabbitmq\n    url: ${via(toDestination)}\n    exchange: ${exchange}`,
      sourceYaml: `    type: rabbitmq\n    queueName: ${queue}\n    connectionUrl: ${via(toSource)}`,
      send: (body) => kit.sendToQueue(queue, body),
      settled: () => eventually(async () => (await kit.messageCount(queue)) === 0),
      arrived: () =>
        Promise.resolve(delivered.messages.map((m) => m.properties.messageId as string)),
      cleanup: () => kit.cleanup(),
    };
  },
});
