/**
 * The plain kafkajs producer beside QueueBox: 1 KiB records, QueueBox's producer settings
 * (idempotent, acks all, one request in flight) and its in-flight count; with `outboxWork`, the
 * database work an outbox does per record runs beside it in a process of its own
 * (lib/outbox-ceiling.mjs: QueueBox's claim and completion of 400 rows per 400 acks), so the run
 * shows what that work alone costs the broker path on this machine: the ceiling of any outbox.
 */
import { StickyPartitioning } from '@queuebox/kafka';
import { loadAverage } from '../lib/machine.mjs';
import { outboxWorkSetting, recordOutboxWork, withOutboxWork } from '../lib/outbox-ceiling.mjs';
import { log, round } from '../lib/util.mjs';
import { PARTITIONS, produceWindow } from './broker.mjs';

export async function plainThroughput(ctx, broker, { id, inFlight, outboxWork = false, sticky = false }) {
  if (!outboxWork) return plainRun(ctx, broker, { id, inFlight, onAcked: undefined, sticky });
  const { result, work } = await withOutboxWork(ctx, (onAcked) =>
    plainRun(ctx, broker, { id, inFlight, onAcked }),
  );
  result.title = `plain producer, ${inFlight} in flight, with an outbox's claims and completions beside it`;
  result.settings.outboxWork = outboxWorkSetting('acks');
  recordOutboxWork(result.figures, work, { rows: result.rows, seconds: result.figures.firstToLastSeconds });
  return result;
}

async function plainRun(ctx, broker, { id, inFlight, onAcked, sticky = false }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await broker.scratch(id);
  log(`${id}: plain kafkajs producer, ${rows} records, ${inFlight} in flight — ${scratch.topic}`);
  try {
    const loadBefore = loadAverage();
    const { t0, t1, renewed } = await produceWindow(broker.kafka, {
      topic: scratch.topic,
      count: rows,
      inFlight,
      body: (i) => ctx.payloads.text(i, null),
      onAcked,
      partitioning: sticky ? new StickyPartitioning() : undefined,
    });
    const depth = await scratch.depth();
    const seconds = (t1 - t0) / 1000;
    return {
      id,
      system: 'kafkajs',
      title: `plain producer, ${inFlight} records in flight (one sendBatch of ${inFlight} at a time)${sticky ? ", QueueBox's sticky partitioner" : ''}`,
      rows,
      payloadBytes: options['body-bytes'],
      settings: {
        client: `kafkajs 2.2.4 idempotent producer, acks -1, maxInFlightRequests 1, sendBatch of ${inFlight}, null keys, ${PARTITIONS} partitions, ${sticky ? "QueueBox's partitioner (all unkeyed records of a request on one partition, the next after 16 KiB)" : "kafkajs's default partitioner (round-robin for null keys)"}`,
      },
      figures: {
        messagesPerSecond: round(rows / seconds, 0),
        firstToLastSeconds: round(seconds, 2),
        inTopic: depth,
        lost: Math.max(0, rows - depth),
        producersRenewed: renewed,
      },
      loadAverage: { before: loadBefore, after: loadAverage() },
      cpu: ctx.cpu.window(t0, t1),
    };
  } finally {
    await scratch.drop();
  }
}
