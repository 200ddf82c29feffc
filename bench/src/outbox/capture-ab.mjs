/**
 * `qb-cap-ab` of `pnpm bench outbox` (issue 14, Speed): capture `polling` against
 * `postgres-logical` in one run, alternated three times (polling, capture, polling, capture,
 * polling, capture). Each of the six mode runs makes two measurements, each on a fresh database:
 * - `a`: `--rows` rows of ~1 KiB with NULL keys loaded first, then QueueBox started at its
 *   defaults; msg/s from the first to the last receipt at the sink (as `qb-a`);
 * - `commit`: QueueBox running on an empty outbox while 16 connections commit single-row
 *   `INSERT INTO outbox (topic, payload)` statements (autocommit) for `--duration` s: the
 *   application's commits per second, and how many of those rows QueueBox had delivered by the
 *   end of the window.
 * One scenario: its twelve measurements in `runs`, the medians per mode, the ratios
 * capture / polling (the issue's target, each ≥ 0.9: capture-ab-report.mjs).
 */
import { startActivitySampler } from '../lib/activity-sampler.mjs';
import { waitQuiet } from '../lib/context.mjs';
import { loadAverage } from '../lib/machine.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { describeSettings, migrate, startQueueBox, writeConfig } from '../lib/queuebox.mjs';
import { fmtInt } from '../lib/report.mjs';
import { freePort, log, now, percentile, round } from '../lib/util.mjs';
import { measureDelivery } from './delivery.mjs';
import { captureRunning, captureSettings, createPublication } from './latency.mjs';
import { loadOutbox } from './load.mjs';
import { outboxConfig } from './queuebox-outbox.mjs';
import { loadSettings } from '../lib/context.mjs';
import { outboxDrained } from '../lib/outbox-states.mjs';

export const CAPTURE_AB_ID = 'qb-cap-ab';
export const ROUNDS = 3;
export const CLIENTS = 16;
export const MODES = ['polling', 'capture'];
export const MODE_NAME = { polling: 'polling', capture: 'postgres-logical' };
const FIGURE = { a: 'messagesPerSecond', commit: 'commitsPerSecond' };

export async function captureAb(ctx) {
  const { options } = ctx;
  const scenario = {
    id: CAPTURE_AB_ID,
    system: 'QueueBox',
    title: `capture polling vs postgres-logical, alternated ${ROUNDS}×: (a) ${options.rows} rows; ${CLIENTS} clients' single-row commits for ${options.duration} s`,
    rows: options.rows,
    keys: 0,
    payloadBytes: options['body-bytes'],
    settings: {
      ...describeSettings(
        'qb_bench_<random, one per measurement>',
        configFor(ctx, '<free port, one per measurement>', 'capture'),
        '<one per measurement>',
      ),
      note: 'QueueBox defaults otherwise; the polling runs leave outbox.capture out (capture polling, outbox.pollIntervalMs 100), the capture runs set it as shown (reconciliationIntervalMs 1000) with publication queuebox_outbox FOR TABLE outbox',
      statistics: options['no-analyze']
        ? '(a): no ANALYZE after loading (--no-analyze)'
        : '(a): ANALYZE after loading (autovacuum is off on this server)',
    },
  };
  const level = await walLevel();
  if (level !== 'logical') {
    scenario.skipped = `the server runs with wal_level=${level}; capture postgres-logical needs logical (.ci/run sets it)`;
    log(`${CAPTURE_AB_ID} skipped: ${scenario.skipped}`);
    return { ...scenario, runs: [] };
  }
  const runs = [];
  for (let pass = 1; pass <= ROUNDS; pass += 1) {
    for (const mode of MODES) {
      for (const [measure, run] of [
        ['a', throughputRun],
        ['commit', commitRun],
      ]) {
        const id = `${CAPTURE_AB_ID}-${measure}-${mode}-${pass}`;
        const head = { id, measure, mode, captureMode: MODE_NAME[mode], round: pass };
        const quietCheck =
          options['quiet-wait'] > 0 ? await waitQuiet(options['quiet-wait']) : null;
        try {
          runs.push({ ...head, ...(await run(ctx, id, mode)), quietCheck });
        } catch (error) {
          log(`  ${id} failed: ${error.message}`);
          runs.push({ ...head, error: String(error.message).slice(0, 500), quietCheck });
        }
      }
    }
  }
  const ok = runs.filter((r) => !r.error);
  const medians = Object.fromEntries(
    MODES.map((mode) => [
      mode,
      Object.fromEntries(
        Object.entries(FIGURE).map(([measure, key]) => [
          key,
          median(
            ok.filter((r) => r.mode === mode && r.measure === measure).map((r) => r.figures[key]),
          ),
        ]),
      ),
    ]),
  );
  const ratio = (key) =>
    medians.polling[key] && medians.capture[key]
      ? round(medians.capture[key] / medians.polling[key], 2)
      : null;
  return {
    ...scenario,
    runs,
    medians,
    ratios: {
      messagesPerSecond: ratio('messagesPerSecond'),
      commitsPerSecond: ratio('commitsPerSecond'),
    },
    queueboxDist: ok.find((r) => r.queueboxDist)?.queueboxDist ?? null,
  };
}

function configFor(ctx, httpPort, mode, id = CAPTURE_AB_ID) {
  const config = outboxConfig(ctx.sink, httpPort);
  if (mode === 'capture') config.outbox = { capture: captureSettings(ctx, id) };
  return config;
}

/** Config, migration and (capture) publication on `db`; returns how to start QueueBox there. */
async function prepare(ctx, id, mode, db) {
  const httpPort = await freePort();
  const configFile = writeConfig(`${ctx.stamp}-${id}`, configFor(ctx, httpPort, mode, id));
  migrate(db, configFile);
  if (mode === 'capture') await createPublication(db);
  return () =>
    startQueueBox({ label: `${ctx.stamp}-${id}-queuebox`, database: db, configFile, httpPort });
}

async function throughputRun(ctx, id, mode) {
  const { options } = ctx;
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(`${id}: (a) ${options.rows} rows, capture ${MODE_NAME[mode]} — database ${db}`);
    const start = await prepare(ctx, id, mode, db);
    const sql = connect(db, { max: 1 });
    try {
      const loading = await loadOutbox(sql, {
        rows: options.rows,
        keys: 0,
        ...loadSettings(ctx),
      });
      let captureUp = Promise.resolve(null);
      const result = await measureDelivery(ctx, db, {
        label: id,
        rows: options.rows,
        role: 'queuebox',
        timeoutMs: options.timeout * 1000,
        start: async () => {
          const queuebox = await start();
          // Watched beside the delivery, so that the measurement itself waits for nothing.
          if (mode === 'capture') captureUp = captureUpAfter(queuebox, id);
          return queuebox;
        },
        allDone: () => outboxDrained(sql),
      });
      delete result.metricsText;
      const captureUpMs = await captureUp;
      log(
        `  ${fmtInt(result.figures.messagesPerSecond)} msg/s over ${result.figures.firstToLastReceiptSeconds} s${mode === 'capture' ? `, capture up ${captureUpMs ?? '—'} ms after start` : ''}`,
      );
      return { loading, captureUpMs, ...result };
    } finally {
      await sql.end();
    }
  });
}

/**
 * Ms from the process start until /health shows outbox-capture up; null if it did not (in (a) the
 * watch ends when QueueBox stops, so null there means capture never ran during the delivery).
 */
function captureUpAfter(queuebox, id) {
  return captureRunning(queuebox).then(
    () => round(now() - queuebox.startedAt, 0),
    (error) => {
      log(`  ${id}: outbox-capture not up (${error.message})`);
      return null;
    },
  );
}

async function commitRun(ctx, id, mode) {
  const { options } = ctx;
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(
      `${id}: ${CLIENTS} clients' single-row commits for ${options.duration} s, capture ${MODE_NAME[mode]} — database ${db}`,
    );
    const start = await prepare(ctx, id, mode, db);
    const activity = startActivitySampler({ database: db });
    ctx.setBackendSource(activity.backendPids);
    const sql = connect(db, { max: CLIENTS });
    let queuebox = null;
    try {
      queuebox = await start();
      ctx.cpu.setRole(queuebox.pid, 'queuebox');
      const captureUpMs = mode === 'capture' ? await captureUpAfter(queuebox, id) : null;
      if (mode === 'capture' && captureUpMs === null)
        throw new Error('outbox-capture never came up');
      await ctx.sink.reset({ recordTimes: false });
      // Opens the 16 connections before the window.
      await Promise.all(Array.from({ length: CLIENTS }, () => sql`select 1`));
      const loadBefore = loadAverage();
      const { tStart, tEnd, latencies } = await insertLoop(sql, ctx.payloads, options.duration);
      const sink = await ctx.sink.summary();
      const seconds = (tEnd - tStart) / 1000;
      latencies.sort((x, y) => x - y);
      const commits = latencies.length;
      log(
        `  ${fmtInt(commits / seconds)} commits/s (${fmtInt(commits)} in ${round(seconds, 2)} s), ${fmtInt(sink.unique)} delivered by the end`,
      );
      return {
        captureUpMs,
        figures: {
          commitsPerSecond: round(commits / seconds, 0),
          commits,
          seconds: round(seconds, 2),
          connections: CLIENTS,
          commitMs: {
            p50: round(percentile(latencies, 50), 2),
            p99: round(percentile(latencies, 99), 2),
            max: round(latencies[commits - 1] ?? null, 1),
          },
          deliveredByEnd: sink.unique,
          duplicates: sink.duplicates,
        },
        insert: `INSERT INTO outbox (topic, payload) VALUES ('bench.event', $1::text::jsonb), autocommit, ${CLIENTS} postgres.js connections in the bench process, each looping for --duration s`,
        loadAverage: { before: loadBefore, after: loadAverage() },
        cpu: ctx.cpu.window(tStart, tEnd),
        database: activity.window(tStart, tEnd),
        log: queuebox.logFile,
        queueboxDist: queuebox.dist,
      };
    } finally {
      await sql.end({ timeout: 5 });
      await queuebox?.stop();
      await activity.stop();
    }
  });
}

/** CLIENTS loops of autocommit single-row INSERTs until `seconds` have passed. */
async function insertLoop(sql, payloads, seconds) {
  const latencies = [];
  let seq = 0;
  const tStart = now();
  const until = tStart + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (now() < until) {
        const body = payloads.text(seq, null);
        seq += 1;
        const t = now();
        await sql`INSERT INTO outbox (topic, payload) VALUES ('bench.event', ${body}::text::jsonb)`;
        latencies.push(now() - t);
      }
    }),
  );
  return { tStart, tEnd: now(), latencies };
}

async function walLevel() {
  const sql = connect('postgres', { max: 1 });
  try {
    const [row] = await sql`SELECT current_setting('wal_level') AS level`;
    return row.level;
  } finally {
    await sql.end();
  }
}

function median(values) {
  const v = values.filter((x) => typeof x === 'number').sort((x, y) => x - y);
  if (v.length === 0) return null;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : round((v[m - 1] + v[m]) / 2, 0);
}
