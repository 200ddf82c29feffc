/**
 * The ceiling of any outbox on this machine: a plain client (broker publishes or HTTP requests)
 * run while a process of its own (outbox-work.mjs) does the database work an outbox must do per
 * message and nothing else: QueueBox's own claim of 400 loaded rows and its fenced `sent`
 * completion of them per 400 completed publishes. The plain client's rate with that beside it,
 * against its rate alone, is what the writes cost the broker or the HTTP path: no outbox that
 * writes those rows can beat it here. Used by mq-plain-8-db, nats-plain-8-db and limit-db-<size>.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import { loadOutbox } from '../outbox/load.mjs';
import { connect, withDatabase } from './pg.mjs';
import { round } from './util.mjs';
import { loadSettings } from './context.mjs';

/**
 * Rows per claim and per completion: the poller's grown claim at the defaults (`maxClaimRows`,
 * 4 × outbox.batchSize), which is what it claims and completes under the backlogs these benches
 * load. With 100 the yardstick paid four round trips and commits where QueueBox pays one.
 */
export const OUTBOX_WORK_BATCH = 400;

/** The `settings.outboxWork` text of a result; `unit` names what is counted ("confirms"). */
export const outboxWorkSetting = (unit) =>
  `a process of its own claims ${OUTBOX_WORK_BATCH} rows and marks them sent (QueueBox's own statements) per ${OUTBOX_WORK_BATCH} ${unit}; no publishing`;

/**
 * Adds the work's figures to a result's: rows written in all and by the client's last
 * completion, the ms the rest took after it, and the rate counted until that work was done too
 * (`seconds` is the client's first→last window): when the work fell behind, the client's own
 * rate overstates the ceiling and this one is the lower bound of it.
 */
export function recordOutboxWork(figures, work, { rows, seconds }) {
  figures.outboxRowsWritten = work.rowsWritten;
  figures.outboxRowsWrittenByClientEnd = work.rowsWrittenByClientEnd;
  figures.outboxWorkLagMs = work.lagMs;
  figures.messagesPerSecondUntilOutboxWorkDone =
    seconds && work.lagMs !== null ? round(rows / (seconds + work.lagMs / 1000), 0) : null;
}

/** One line on whether the worker kept up, from a result's figures. */
export function outboxWorkLine(figures) {
  if (figures?.outboxRowsWritten === undefined) return null;
  const { outboxRowsWritten: all, outboxRowsWrittenByClientEnd: byEnd, outboxWorkLagMs: lag } =
    figures;
  const untilDone = figures.messagesPerSecondUntilOutboxWorkDone;
  return `outbox work: ${all} rows claimed and marked sent, ${byEnd ?? '?'} of them by the client's last completion, the rest within ${lag ?? '?'} ms after it (msg/s until that was done too: ${untilDone?.toLocaleString('en-US') ?? '—'})`;
}

/**
 * Creates a scratch database with QueueBox's migrations and an outbox of `rows` loaded rows
 * (null keys, the run's payloads), forks the worker and runs `body(onDone, { database })`.
 * `onDone(count)` takes the running count of completed publishes or requests and hands the
 * worker one batch at every multiple of OUTBOX_WORK_BATCH (and the rest at the end); the count
 * reaching `rows` marks the client's end.
 * Resolves with the body's result and `work`: the rows the worker wrote (`rowsWritten`, all its
 * batches finished), those written by the client's end (`rowsWrittenByClientEnd`) and how long
 * the rest took after it (`lagMs`): work left over was not inside the client's window.
 */
export async function withOutboxWork(ctx, body, { rows = ctx.options.rows } = {}) {
  const { options } = ctx;
  return withDatabase('qb_bench', options['keep-db'], async (database) => {
    const sql = connect(database, { max: 1 });
    try {
      await runMigrations(sql, { logger: silentLogger });
      await loadOutbox(sql, {
        rows,
        keys: 0,
        ...loadSettings(ctx),
      });
    } finally {
      await sql.end({ timeout: 5 });
    }
    const script = fileURLToPath(new URL('./outbox-work.mjs', import.meta.url));
    const worker = fork(script, [database], { stdio: 'inherit' });
    try {
      const [ready] = await once(worker, 'message');
      ctx.cpu.setRole(worker.pid, 'outbox work');
      // measureDelivery (the HTTP bench) replaces this with its own sampler's pids of the database.
      const backends = new Set(ready.backendPids ?? []);
      ctx.setBackendSource(() => backends);
      let ended = false;
      const onDone = (count) => {
        if (count > 0 && count % OUTBOX_WORK_BATCH === 0) worker.send({ rows: OUTBOX_WORK_BATCH });
        if (count >= rows && !ended) {
          ended = true;
          // A run whose rows are not a multiple of the batch still has every row written.
          const rest = rows % OUTBOX_WORK_BATCH;
          if (rest > 0) worker.send({ rows: rest });
          worker.send('end');
        }
      };
      const result = await body(onDone, { database });
      const finished = once(worker, 'message');
      worker.send('stop');
      const [{ done, doneAtEnd, lagMs }] = await finished;
      return {
        result,
        work: { rowsWritten: done, rowsWrittenByClientEnd: doneAtEnd, lagMs },
      };
    } finally {
      ctx.setBackendSource(() => new Set());
      if (worker.exitCode === null) worker.kill();
    }
  });
}
