/**
 * The plain nats client beside QueueBox: 1 KiB messages to a stream, N PubAcks in flight; with
 * `outboxWork`, the database work an outbox does per message runs beside it in a process of its
 * own (lib/outbox-ceiling.mjs: QueueBox's claim and completion of 400 rows per 400 PubAcks), so
 * the run shows what that work alone costs the server on this machine: the ceiling of any outbox.
 */
import { loadAverage } from '../lib/machine.mjs';
import { outboxWorkSetting, recordOutboxWork, withOutboxWork } from '../lib/outbox-ceiling.mjs';
import { log, round } from '../lib/util.mjs';
import { publishAcked } from './server.mjs';

export async function plainThroughput(ctx, server, { id, inFlight, outboxWork = false, lean = false }) {
  if (!outboxWork) return plainRun(ctx, server, { id, inFlight, lean, onAcked: undefined });
  const { result, work } = await withOutboxWork(ctx, (onAcked) =>
    plainRun(ctx, server, { id, inFlight, lean, onAcked }),
  );
  result.title = `${lean ? 'lean' : 'plain'} client, ${inFlight} in flight, with an outbox's claims and completions beside it`;
  result.settings.outboxWork = outboxWorkSetting('PubAcks');
  recordOutboxWork(result.figures, work, { rows: result.rows, seconds: result.figures.firstToLastSeconds });
  return result;
}

async function plainRun(ctx, server, { id, inFlight, lean, onAcked }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await server.scratch(id);
  log(`${id}: plain nats client, ${rows} messages, ${inFlight} in flight — stream ${scratch.stream}`);
  try {
    const loadBefore = loadAverage();
    const { t0, t1, failed } = await publishAcked(server.connection, {
      subject: scratch.subject,
      count: rows,
      inFlight,
      body: (i) => ctx.payloads.text(i, null),
      onAcked,
      lean,
    });
    const stored = await scratch.count();
    const seconds = (t1 - t0) / 1000;
    return {
      id,
      system: 'nats.js',
      title: `${lean ? 'lean' : 'plain'} client, ${inFlight} publishes in flight`,
      rows,
      payloadBytes: options['body-bytes'],
      settings: {
        client: lean
          ? `@nats-io/transport-node ${'3.4.0'} publish with a reply token on one subscription, PubAck parsed by hand (no js.publish), ${inFlight} outstanding at most`
          : `@nats-io/jetstream ${'3.4.0'} js.publish awaiting each PubAck, ${inFlight} outstanding at most`,
      },
      figures: {
        messagesPerSecond: round(rows / seconds, 0),
        firstToLastSeconds: round(seconds, 2),
        failed,
        inStream: stored,
        lost: rows - stored,
      },
      loadAverage: { before: loadBefore, after: loadAverage() },
      cpu: ctx.cpu.window(t0, t1),
    };
  } finally {
    await scratch.drop();
  }
}
