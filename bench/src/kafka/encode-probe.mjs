/**
 * CPU per record of kafkajs encoding one Produce request (v7, what a 3.x or 4.x broker gets) of
 * 8 records of 1 KiB with QueueBox's three headers, the request QueueBox's publisher sends at its
 * defaults; no socket, no broker. The kafkajs is the workspace's (patched) one, or the one in
 * `--kafkajs <dir>` (another checkout's, for an A/B of the patch):
 * `node src/kafka/encode-probe.mjs [--kafkajs <dir>] [--requests 40000] [--turns 3]`.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const { values } = parseArgs({
  options: {
    kafkajs: { type: 'string', default: dirname(require.resolve('kafkajs')) },
    requests: { type: 'string', default: '40000' },
    turns: { type: 'string', default: '3' },
  },
});
const produce = require(`${values.kafkajs}/src/protocol/requests/produce/v7/request`);
const RECORDS = 8;
const value = Buffer.from(JSON.stringify({ pad: 'x'.repeat(1000) }));
const messages = Array.from({ length: RECORDS }, (_, i) => ({
  key: null,
  value,
  headers: { 'x-message-id': `0f8fad5b-d9cb-469f-a165-70867728950${i}`, 'x-topic': 'bench.topic', 'x-attempt': '1' },
  timestamp: String(Date.now()),
}));
const encodeOne = async () =>
  (
    await produce({
      acks: -1,
      timeout: 30_000,
      topicData: [{ topic: 'bench.topic', partitions: [{ partition: 0, firstSequence: 0, messages }] }],
    }).encode()
  ).buffer;

const requests = Number(values.requests);
for (let i = 0; i < requests / 2; i += 1) await encodeOne();
const figures = [];
for (let turn = 0; turn < Number(values.turns); turn += 1) {
  const before = process.cpuUsage();
  for (let i = 0; i < requests; i += 1) await encodeOne();
  const used = process.cpuUsage(before);
  figures.push((used.user + used.system) / requests / RECORDS);
}
figures.sort((a, b) => a - b);
console.log(
  `kafkajs at ${values.kafkajs}: ${figures.map((f) => f.toFixed(1)).join(', ')} µs/record (median ${figures[Math.floor(figures.length / 2)].toFixed(1)}), ${requests} requests of ${RECORDS} records a turn`,
);
