/**
 * The Kafka publisher alone against the plain producer, in one process and alternated, CPU per
 * record from process.cpuUsage (run from bench/ with the workspace's Node.js):
 * `node src/kafka/publisher-probe.mjs [rows] [turns] [modes]`.
 *   plain   the plain kafkajs producer, QueueBox's partitioner, one sendBatch of 8 at a time; it
 *           also prints a request's time from call to ack and from an ack to the next call
 *   plainh  the same with QueueBox's three headers on every record
 *   link    QueueBox's Kafka publisher driven by 8 publishes at a time, as the poller's slots,
 *           without the poller or a database
 */
import { randomUUID } from 'node:crypto';
import { JsonPayload } from '@queuebox/core';
import { StickyPartitioning, createKafkaPublisher } from '@queuebox/kafka';
import { makePayloads } from '../lib/payload.mjs';
import { KAFKA_BROKERS, openBroker } from './broker.mjs';

const rows = Number(process.argv[2] ?? 20000);
const turns = Number(process.argv[3] ?? 3);
const modes = (process.argv[4] ?? 'plain,plainh,link').split(',');
const IN_FLIGHT = 8;
const payloads = makePayloads(1024);
const logger = { debug() {}, info() {}, warn: console.warn, error: console.error, child: () => logger };

const messageOf = (i) => ({
  id: randomUUID(),
  topic: 'bench.topic',
  key: null,
  aggregateType: null,
  payload: JsonPayload.fromText(payloads.text(i, null)),
  headers: {},
  state: 'processing',
  attempt: 1,
  maxAttempts: 10,
  scheduledAt: new Date(),
  createdAt: new Date(),
  sequence: null,
  lastError: null,
  claimToken: randomUUID(),
});

async function plain(broker, topic, headers) {
  const partitioning = new StickyPartitioning();
  const producer = broker.kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: partitioning.create });
  await producer.connect();
  const messages = Array.from({ length: rows }, (_, i) => messageOf(i));
  const sends = [];
  const gaps = [];
  let lastAck = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let start = 0; start < rows; start += IN_FLIGHT) {
    const batch = [];
    for (let i = start; i < Math.min(rows, start + IN_FLIGHT); i++) {
      const m = messages[i];
      batch.push({
        key: null,
        value: m.payload.text,
        ...(headers ? { headers: { 'x-message-id': m.id, 'x-topic': m.topic, 'x-attempt': String(m.attempt) } } : {}),
      });
    }
    partitioning.nextRequest();
    const s0 = performance.now();
    if (lastAck) gaps.push(s0 - lastAck);
    await producer.sendBatch({ acks: -1, topicMessages: [{ topic, messages: batch }] });
    lastAck = performance.now();
    sends.push(lastAck - s0);
  }
  const q = (a, p) => [...a].sort((x, y) => x - y)[Math.floor(p * a.length)].toFixed(3);
  const mean = (a) => (a.reduce((x, y) => x + y, 0) / a.length).toFixed(3);
  console.log(`  send p50 ${q(sends, 0.5)} p90 ${q(sends, 0.9)} mean ${mean(sends)} | gap p50 ${q(gaps, 0.5)} p90 ${q(gaps, 0.9)} mean ${mean(gaps)}`);
  const cpu = process.cpuUsage(c0);
  const t1 = performance.now();
  await producer.disconnect();
  return { t0, t1, cpu };
}

async function link(broker, topic) {
  const publisher = createKafkaPublisher(
    { destinations: { k: { type: 'kafka', bootstrapServers: KAFKA_BROKERS, topic, keyTemplate: '{{ key }}', timeoutMs: 30000, securityProtocol: 'PLAINTEXT', headers: {} } } },
    { logger },
  );
  const never = new AbortController().signal;
  const request = (message) => ({
    message,
    destination: 'k',
    payload: message.payload,
    routingKey: null,
    address: topic,
    signal: never,
    watchCancel: () => true,
    unwatchCancel: () => undefined,
  });
  // The connect and the broker check go before the clock starts, as in QueueBox's steady state.
  const warm = await publisher.publish(request(messageOf(0)));
  if (!warm.ok) throw new Error(warm.error.message);
  const messages = Array.from({ length: rows }, (_, i) => messageOf(i));
  let next = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const slot = async () => {
    while (next < rows) {
      const outcome = await publisher.publish(request(messages[next++]));
      if (!outcome.ok) throw new Error(outcome.error.message);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, slot));
  const cpu = process.cpuUsage(c0);
  const t1 = performance.now();
  await publisher.close();
  return { t0, t1, cpu };
}

const broker = await openBroker();
const results = {};
try {
  for (let turn = 1; turn <= turns; turn++) {
    for (const mode of modes) {
      const scratch = await broker.scratch(`probe-${mode}`);
      try {
        const run = mode === 'link' ? await link(broker, scratch.topic) : await plain(broker, scratch.topic, mode === 'plainh');
        const depth = await scratch.depth();
        const seconds = (run.t1 - run.t0) / 1000;
        const usPerRecord = (run.cpu.user + run.cpu.system) / rows;
        (results[mode] ??= []).push(usPerRecord);
        console.log(
          `turn ${turn} ${mode.padEnd(6)} ${Math.round(rows / seconds)} rec/s, CPU ${usPerRecord.toFixed(1)} µs/record (user ${(run.cpu.user / rows).toFixed(1)}), ${depth} in topic`,
        );
      } finally {
        await scratch.drop();
      }
    }
  }
} finally {
  await broker.close();
}
for (const [mode, values] of Object.entries(results)) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(`${mode}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs/record`);
}
