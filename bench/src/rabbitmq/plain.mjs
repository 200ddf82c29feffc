/**
 * The plain amqplib client beside QueueBox: 1 KiB messages with confirms, N in flight; with
 * `outboxWork`, the database work an outbox does per message runs beside it in a process of its
 * own (lib/outbox-ceiling.mjs: QueueBox's claim and completion of 400 rows per 400 confirms), so
 * the run shows what that work alone costs the broker on this machine: the ceiling of any outbox.
 */
import { loadAverage } from '../lib/machine.mjs';
import { outboxWorkSetting, recordOutboxWork, withOutboxWork } from '../lib/outbox-ceiling.mjs';
import { log, round } from '../lib/util.mjs';
import { publishConfirmed } from './broker.mjs';

export async function plainThroughput(ctx, broker, { id, inFlight, outboxWork = false }) {
  if (!outboxWork) return plainRun(ctx, broker, { id, inFlight, onConfirmed: undefined });
  const { result, work } = await withOutboxWork(ctx, (onConfirmed) =>
    plainRun(ctx, broker, { id, inFlight, onConfirmed }),
  );
  result.title = `plain client, ${inFlight} in flight, with an outbox's claims and completions beside it`;
  result.settings.outboxWork = outboxWorkSetting('confirms');
  recordOutboxWork(result.figures, work, { rows: result.rows, seconds: result.figures.firstToLastSeconds });
  return result;
}

async function plainRun(ctx, broker, { id, inFlight, onConfirmed }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await broker.scratch(id);
  log(`${id}: plain amqplib client, ${rows} messages, ${inFlight} in flight — ${scratch.exchange}`);
  try {
    const loadBefore = loadAverage();
    const { t0, t1, failed } = await publishConfirmed(broker.connection, {
      exchange: scratch.exchange,
      routingKey: 'bench.event',
      count: rows,
      inFlight,
      body: (i) => ctx.payloads.text(i, null),
      onConfirmed,
    });
    const depth = await scratch.depth();
    const seconds = (t1 - t0) / 1000;
    return {
      id,
      system: 'amqplib',
      title: `plain client, ${inFlight} publishes in flight`,
      rows,
      payloadBytes: options['body-bytes'],
      settings: {
        client: `amqplib confirm channel, persistent, content_type application/json, ${inFlight} unconfirmed at most`,
      },
      figures: {
        messagesPerSecond: round(rows / seconds, 0),
        firstToLastSeconds: round(seconds, 2),
        nacked: failed,
        inQueue: depth,
        lost: rows - depth,
      },
      loadAverage: { before: loadBefore, after: loadAverage() },
      cpu: ctx.cpu.window(t0, t1),
    };
  } finally {
    await scratch.drop();
  }
}
