import { createNatsKit } from '@queuebox/testing';
import { reconnectSuite } from './reconnect-suite.js';
import { e2eServices } from './e2e-services.js';
import { eventually } from './service.js';

const SUITE = 'app: NATS connections cut mid-run';
const { ready, pgUrl, url, target } = await e2eServices(SUITE, 'nats');

/**
 * NATS: the proxies stand in `servers`; PubAcks are slowed during the destination test, and the
 * message id (`Nats-Msg-Id`) deduplicates every retry of a publish the cut had let through.
 */
reconnectSuite({
  kind: 'nats',
  title: SUITE,
  ready,
  pgUrl,
  database: 'qb_nats_reconnect',
  target,
  rejoinMs: 20_000,
  testMs: 60_000,
  destinationCutMs: 500,
  slowAcks: true,
  keyedRows: false,
  deduplicates: true,
  async open({ toSource, toDestination }) {
    const kit = createNatsKit(url, 'qb-nreconnect');
    const source = await kit.stream(kit.name('IN'), [kit.subject('in.>')]);
    const delivered = await kit.stream(kit.name('OUT'), [kit.subject('out.>')]);
    return {
      destinationYaml: [
        `    type: nats`,
        `    servers: nats://${toDestination.host}:${toDestination.port}`,
        `    subject: ${kit.subject('out.rows')}`,
      ].join('\n'),
      sourceYaml: [
        `    type: nats`,
        `    servers: nats://${toSource.host}:${toSource.port}`,
        `    stream: ${source}`,
        `    durable: queuebox`,
        `    ackWaitMs: 3000`,
      ].join('\n'),
      send: (body) => kit.publish(kit.subject('in.orders'), body),
      settled: () =>
        eventually(async () => (await kit.outstanding(source, 'queuebox')) === 0, 20_000),
      arrived: async () =>
        (await kit.messages(delivered)).map((m) => m.headers['x-message-id']?.[0]),
      cleanup: () => kit.cleanup(),
    };
  },
});
