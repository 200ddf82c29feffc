/** The plain kafkajs producer beside QueueBox: 1 KiB records, QueueBox's producer settings. */
import { loadAverage } from '../lib/machine.mjs';
import { log, round } from '../lib/util.mjs';
import { PARTITIONS, produceBatches } from './broker.mjs';

export async function plainThroughput(ctx, broker, { id, batch }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await broker.scratch(id);
  log(`${id}: plain kafkajs producer, ${rows} records in batches of ${batch} — ${scratch.topic}`);
  try {
    const loadBefore = loadAverage();
    const { t0, t1 } = await produceBatches(broker.kafka, {
      topic: scratch.topic,
      count: rows,
      batch,
      body: (i) => ctx.payloads.text(i, null),
    });
    const depth = await scratch.depth();
    const seconds = (t1 - t0) / 1000;
    return {
      id,
      system: 'kafkajs',
      title: `plain producer, sendBatch of ${batch}, one in flight`,
      rows,
      payloadBytes: options['body-bytes'],
      settings: {
        client: `kafkajs 2.2.4 idempotent producer, acks -1, maxInFlightRequests 1, null keys, ${PARTITIONS} partitions`,
      },
      figures: {
        messagesPerSecond: round(rows / seconds, 0),
        firstToLastSeconds: round(seconds, 2),
        inTopic: depth,
        lost: rows - depth,
      },
      loadAverage: { before: loadBefore, after: loadAverage() },
      cpu: ctx.cpu.window(t0, t1),
    };
  } finally {
    await scratch.drop();
  }
}
