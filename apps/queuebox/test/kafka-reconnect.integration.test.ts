import { brokerAddress, createKafkaKit } from '@queuebox/testing';
import { skipTitle } from '@queuebox/testing/contracts';
import { kafkaSuite, kafkaThrough } from './kafka-e2e.js';
import { reconnectSuite } from './reconnect-suite.js';
import { eventually } from './service.js';

const SUITE = 'app connections cut mid-run';
const { ready, skip, pgUrl, brokers } = await kafkaSuite(SUITE, 2);

/**
 * Kafka: kafkajs dials the proxies for every broker (`kafkaThrough`). A consumer that lost its
 * connection joins its group again as a new member, which may wait for the broker to drop the old
 * one (kafkajs's 30 s session), hence the bounds. The destination stays cut off longer than a
 * row's 2000 ms budget, so the rows in flight fail and take the retry path rather than kafkajs's
 * own retries carrying them over the cut. Kafka keeps no duplicate window across producers.
 */
reconnectSuite({
  kind: 'kafka',
  title: skipTitle('Kafka connections cut mid-run', skip),
  ready,
  pgUrl,
  database: 'qb_kafka_reconnect',
  target: ready ? brokerAddress(brokers) : { host: '127.0.0.1', port: 9092 },
  rejoinMs: 60_000,
  testMs: 150_000,
  destinationCutMs: 3_000,
  slowAcks: true,
  keyedRows: true,
  deduplicates: false,
  async open({ toSource, toDestination }) {
    const kit = await createKafkaKit(brokers, 'qb-kreconnect');
    const source = await kit.topic(kit.name('in'), 2);
    const out = await kit.topic(kit.name('out'), 2);
    const delivered = kit.collect(out);
    const group = kit.name('queuebox');
    return {
      destinationYaml: [
        `    type: kafka`,
        `    bootstrapServers: ${brokers}`,
        `    topic: ${out}`,
        `    timeoutMs: 2000`,
      ].join('\n'),
      sourceYaml: [
        `    type: kafka`,
        `    bootstrapServers: ${brokers}`,
        `    topics: [${source}]`,
        `    groupId: ${group}`,
      ].join('\n'),
      providers: kafkaThrough({
        destinations: { out: toDestination },
        sources: { orders: toSource },
      }),
      send: (value, i) => kit.produce(source, { key: `k-${i % 16}`, value }),
      settled: () => eventually(async () => (await kit.lag(group, source)) === 0, 20_000),
      arrived: () =>
        Promise.resolve(
          delivered.records.map((r) => r.headers.find(([n]) => n === 'x-message-id')?.[1]),
        ),
      cleanup: () => kit.cleanup(),
    };
  },
});
