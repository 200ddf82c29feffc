import { createRabbitKit, requireService, type FaultProxy } from '@queuebox/testing';
import { reconnectSuite } from './reconnect-suite.js';
import { eventually } from './service.js';

const SUITE = 'app: RabbitMQ connections cut mid-run';
const pg = await requireService('postgres', SUITE);
const rabbit = await requireService('rabbitmq', SUITE);
const url = rabbit.available ? rabbit.url : 'amqp://127.0.0.1:5672';
const broker = new URL(url);

/** RabbitMQ: the proxies stand in the AMQP URLs; publisher confirms, no duplicate window. */
reconnectSuite({
  kind: 'rabbitmq',
  title: SUITE,
  ready: pg.available && rabbit.available,
  pgUrl: pg.available ? pg.url : '',
  database: 'qb_rabbit_cut',
  target: { host: broker.hostname, port: Number(broker.port || 5672) },
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
