/**
 * The Kafka side of `pnpm bench kafka`: the broker (QUEUEBOX_BENCH_KAFKA_BROKERS, default the local
 * 127.0.0.1:9092), a topic of 6 partitions per scenario under a random prefix (deleted
 * afterwards), the count of records a topic holds (sum of end offsets), and a loader that fills a
 * topic with keyed records for the source scenario, and the plain producer that keeps QueueBox's
 * in-flight count.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import kafkajs from 'kafkajs';

const { Kafka, logLevel } = kafkajs;

export const KAFKA_BROKERS = process.env.QUEUEBOX_BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092';
export const PARTITIONS = 6;

/** Whether the first broker accepts a TCP connection within a second. */
export function brokerAnswers(brokers = KAFKA_BROKERS) {
  const [host, port] = brokers.split(',')[0].trim().split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port ?? 9092) });
    const done = (open) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function openBroker() {
  const kafka = new Kafka({ clientId: 'qb-bench', brokers: KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const cluster = await admin.describeCluster();
  return {
    kafka,
    version: `Kafka cluster ${cluster.clusterId} (${cluster.brokers.length} broker(s))`,
    async scratch(label) {
      const topic = `qb-bench.${label}.${randomBytes(3).toString('hex')}`;
      await admin.createTopics({
        topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }],
        waitForLeaders: true,
      });
      return {
        topic,
        async depth() {
          const offsets = await admin.fetchTopicOffsets(topic);
          return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
        },
        async drop() {
          await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
        },
      };
    },
    async close() {
      await admin.disconnect().catch(() => undefined);
    },
  };
}

/**
 * The plain producer with QueueBox's settings (idempotent, acks all, linger 0): batches of
 * `batch` records, one sendBatch at a time, as QueueBox sends them.
 */
export async function produceBatches(kafka, { topic, count, batch, body, key = () => null }) {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const t0 = performance.now();
  try {
    for (let start = 0; start < count; start += batch) {
      const messages = [];
      for (let i = start; i < Math.min(count, start + batch); i++)
        messages.push({ key: key(i), value: body(i) });
      await producer.sendBatch({ acks: -1, topicMessages: [{ topic, messages }] });
    }
    return { t0, t1: performance.now() };
  } finally {
    await producer.disconnect();
  }
}

/**
 * The plain producer at QueueBox's in-flight count: kafkajs's idempotent producer cannot have two
 * sends at once (packages/kafka/src/publisher/send-batches.ts), so `inFlight` records unacked at
 * most is one sendBatch of `inFlight` records at a time, as QueueBox's publisher sends the rows
 * its `outbox.concurrency` publishes hold. `onAcked(n)` takes the running count of acked records.
 * kafkajs's idempotent producer sometimes loses its sequence numbers on a loaded machine (the
 * broker answers OUT_OF_ORDER_SEQUENCE_NUMBER) and stays broken: as QueueBox does, the batch goes
 * again on a new producer (`renewed` counts them; the time stays in the figure). `partitioning`:
 * QueueBox's own partitioner (sticky for unkeyed records), for the scenario that gives the plain
 * producer QueueBox's partitioning too.
 */
export async function produceWindow(kafka, { topic, count, inFlight, body, onAcked, partitioning }) {
  const open = async () => {
    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      ...(partitioning ? { createPartitioner: partitioning.create } : {}),
    });
    await producer.connect();
    return producer;
  };
  let producer = await open();
  const t0 = performance.now();
  let acked = 0;
  let renewed = 0;
  try {
    for (let start = 0; start < count; start += inFlight) {
      const messages = [];
      for (let i = start; i < Math.min(count, start + inFlight); i++) messages.push({ key: null, value: body(i) });
      for (;;) {
        partitioning?.nextRequest();
        try {
          await producer.sendBatch({ acks: -1, topicMessages: [{ topic, messages }] });
          break;
        } catch (error) {
          if (renewed >= 20 || !/sequence number|producer id/i.test(String(error?.message))) throw error;
          renewed += 1;
          await producer.disconnect().catch(() => undefined);
          producer = await open();
        }
      }
      for (let i = 0; i < messages.length; i++) onAcked?.(++acked);
    }
    return { t0, t1: performance.now(), renewed };
  } finally {
    await producer.disconnect();
  }
}
