/**
 * One throughput measurement, the same for QueueBox and the peers: the rows are already in the
 * database; start the worker process, wait until the sink has every message, then until the
 * worker has recorded every completion; report messages/s from the first to the last receipt at
 * the sink, the wall time from process start to all done, order and duplicates as the sink saw
 * them, CPU by role and the database's statement profile over the first→last window.
 */
import { startActivitySampler } from '../lib/activity-sampler.mjs';
import { loadAverage } from '../lib/machine.mjs';
import { connect } from '../lib/pg.mjs';
import { log, now, round, waitFor } from '../lib/util.mjs';

export async function measureDelivery(ctx, database, options) {
  // The database's statement profile is sampled for this measurement only.
  const activity = startActivitySampler({ database });
  ctx.setBackendSource(activity.backendPids);
  try {
    const before = database ? await databaseCounters(database) : null;
    const result = await measure({ ...options, sink: ctx.sink, cpu: ctx.cpu, activity });
    if (before) {
      const after = await databaseCounters(database);
      // Transactions and WAL of the whole measurement (start to all done), per message.
      const delivered = result.figures.delivered || 1;
      result.databaseTotals = {
        commits: after.commits - before.commits,
        rollbacks: after.rollbacks - before.rollbacks,
        commitsPerMessage: round((after.commits - before.commits) / delivered, 4),
        tuplesUpdatedPerMessage: round((after.updated - before.updated) / delivered, 2),
        walBytesPerMessage:
          after.walLsn === null ? null : round(Number(after.walBytes - before.walBytes) / delivered, 0),
      };
    }
    return result;
  } finally {
    await activity.stop();
  }
}

/**
 * The database's commit and update counters and the server's WAL position. The statistics
 * collector reports with a delay (up to PGSTAT_MIN_INTERVAL, 1 s in PostgreSQL 15), so the read
 * after the run waits that long first. The WAL position is the whole server's (others' work
 * on the shared server counts too).
 */
async function databaseCounters(database) {
  const sql = connect('postgres', { max: 1 });
  try {
    await new Promise((r) => setTimeout(r, 1100));
    const [row] = await sql`select xact_commit::text as commits, xact_rollback::text as rollbacks,
        tup_updated::text as updated, pg_current_wal_lsn()::text as lsn,
        pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as wal
      from pg_stat_database where datname = ${database}`;
    return {
      commits: Number(row.commits),
      rollbacks: Number(row.rollbacks),
      updated: Number(row.updated),
      walLsn: row.lsn,
      walBytes: BigInt(row.wal.split('.')[0]),
    };
  } finally {
    await sql.end();
  }
}

async function measure({
  label,
  rows,
  sink,
  cpu,
  activity,
  role,
  start,
  allDone,
  timeoutMs,
  capSeconds = null,
}) {
  await sink.reset({ recordTimes: true });
  const loadBefore = loadAverage();
  const t0 = now();
  const worker = await start();
  // The spawn of the worker process (taken just before it), the origin of every "from start"
  // figure; the bench's own preparation before the spawn does not count.
  const spawnAt = worker.startedAt ?? t0;
  // A group of worker processes (replicas) names one role per process; their sum is the worker's.
  const roles = worker.roles ?? [{ pid: worker.pid, role }];
  for (const r of roles) cpu.setRole(r.pid, r.role);
  let timedOut = false;
  let capped = false;
  let lastLog = now();
  try {
    await waitFor(
      async () => {
        const s = await sink.summary();
        if (now() - lastLog > 10_000) {
          lastLog = now();
          log(
            `  ${label}: ${s.unique.toLocaleString('en-US')} / ${rows.toLocaleString('en-US')} received`,
          );
        }
        if (s.unique >= rows) return true;
        if (capSeconds !== null && now() - t0 > capSeconds * 1000) {
          capped = true;
          return true;
        }
        return false;
      },
      { timeoutMs, everyMs: 100, what: `${label}: all ${rows} messages at the sink` },
    );
  } catch (error) {
    timedOut = true;
    log(`  ${label}: ${error.message}`);
  }
  let allDoneAt = null;
  if (!timedOut && !capped) {
    try {
      await waitFor(allDone, {
        timeoutMs: 60_000,
        everyMs: 100,
        what: `${label}: completions recorded`,
      });
      allDoneAt = now();
    } catch (error) {
      log(`  ${label}: ${error.message}`);
    }
  }
  const s = await sink.summary();
  const loadAfter = loadAverage();
  const span = s.last !== null && s.first !== null ? s.last - s.first : null;
  const cpuWindow = span ? cpu.window(s.first, s.last) : null;
  const dbWindow = span ? activity.window(s.first, s.last) : null;
  const metrics = worker.metrics ? await worker.metrics() : null;
  await worker.stop();
  const fromStart = s.last === null ? null : s.last - spawnAt;
  return {
    figures: {
      messagesPerSecond: span && s.unique > 1 ? round(((s.unique - 1) / span) * 1000, 0) : null,
      messagesPerSecondFromStart:
        fromStart && s.unique > 0 ? round((s.unique / fromStart) * 1000, 0) : null,
      firstToLastReceiptSeconds: span === null ? null : round(span / 1000, 2),
      wallSecondsStartToAllDone:
        allDoneAt === null ? null : round((allDoneAt - spawnAt) / 1000, 2),
      processStartToReadyMs: worker.readyAt ? round(worker.readyAt - spawnAt, 0) : null,
      processStartToFirstReceiptMs: s.first === null ? null : round(s.first - spawnAt, 0),
      cpuMsPerMessage: cpuPerMessage(
        cpuWindow,
        s.unique,
        roles.map((r) => r.role),
      ),
      delivered: s.unique,
      requests: s.count,
      duplicates: s.duplicates,
      keysSeen: s.keys,
      orderViolations: s.violations,
      orderViolationSamples: s.violationSamples,
      timedOut,
      cappedAfterSeconds: capped ? capSeconds : null,
    },
    loadAverage: { before: loadBefore, after: loadAfter },
    cpu: cpuWindow,
    database: dbWindow,
    metricsText: metrics,
    log: worker.logFile,
    queueboxDist: worker.dist ?? null,
  };
}

/**
 * ms of one core per delivered message over the first→last window, for the worker (the sum of
 * its processes' roles) and PostgreSQL.
 */
function cpuPerMessage(window, delivered, roles) {
  if (!window || delivered < 2) return null;
  const per = (percent) =>
    percent === undefined ? null : round(((percent / 100) * window.seconds * 1000) / delivered, 3);
  const workerPercent = roles.reduce((sum, r) => sum + (window.percentOfOneCore[r] ?? 0), 0);
  return {
    worker: per(workerPercent),
    ...(roles.length > 1
      ? { workerByRole: Object.fromEntries(roles.map((r) => [r, per(window.percentOfOneCore[r] ?? 0)])) }
      : {}),
    postgres: per(window.percentOfOneCore['postgres (bench db)'] ?? 0),
    sink: per(window.percentOfOneCore.sink ?? 0),
  };
}

/**
 * measureDelivery for a peer's own worker process (the peers' HTTP client included): measured
 * under the scenario's id, its CPU as the peer worker's, bounded by `--timeout`.
 */
export function measurePeerDelivery(ctx, database, { id, ...options }) {
  return measureDelivery(ctx, database, {
    label: id,
    role: 'peer worker',
    timeoutMs: ctx.options.timeout * 1000,
    ...options,
  });
}
