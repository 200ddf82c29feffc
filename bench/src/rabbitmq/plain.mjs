/**
 * The plain amqplib client beside QueueBox: 1 KiB messages with confirms, N in flight; with
 * `outboxWork`, the database work an outbox does per message runs beside it in a process of its
 * own (outbox-work.mjs: QueueBox's claim and completion of 100 rows per 100 confirms), so the run
 * shows what that work alone costs the broker on this machine: the ceiling of any outbox.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import { loadAverage } from '../lib/machine.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { log, round } from '../lib/util.mjs';
import { loadOutbox } from '../outbox/load.mjs';
import { publishConfirmed } from './broker.mjs';

const WORK_BATCH = 100;

export async function plainThroughput(ctx, broker, { id, inFlight, outboxWork = false }) {
  if (!outboxWork) return plainRun(ctx, broker, { id, inFlight, onConfirmed: undefined });
  return withDatabase('qb_bench', ctx.options['keep-db'], async (db) => {
    const sql = connect(db, { max: 1 });
    try {
      await runMigrations(sql, { logger: silentLogger });
      await loadOutbox(sql, { rows: ctx.options.rows, keys: 0, batch: ctx.options['load-batch'], payloads: ctx.payloads });
    } finally {
      await sql.end({ timeout: 5 });
    }
    const worker = fork(fileURLToPath(new URL('./outbox-work.mjs', import.meta.url)), [db], { stdio: 'inherit' });
    try {
      await once(worker, 'message');
      const onConfirmed = (confirmed) => {
        if (confirmed % WORK_BATCH === 0) worker.send({ rows: WORK_BATCH });
      };
      const result = await plainRun(ctx, broker, { id, inFlight, onConfirmed });
      const finished = once(worker, 'message');
      worker.send('stop');
      const [{ done }] = await finished;
      result.title = `plain client, ${inFlight} in flight, with an outbox's claims and completions beside it`;
      result.settings.outboxWork = `a process of its own claims ${WORK_BATCH} rows and marks them sent (QueueBox's own statements) per ${WORK_BATCH} confirms; no publishing`;
      result.figures.outboxRowsWritten = done;
      return result;
    } finally {
      if (worker.exitCode === null) worker.kill();
    }
  });
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
