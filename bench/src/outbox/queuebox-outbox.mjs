/** QueueBox's outbox scenarios: (a) null keys, (b) 1 000 keys, (c) trickle latency. */
import { fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { startActivitySampler } from '../lib/activity-sampler.mjs';
import { summarizeProfile } from '../lib/cpuprofile.mjs';
import { loadAverage } from '../lib/machine.mjs';
import { PG, connect, withDatabase } from '../lib/pg.mjs';
import {
  describeSettings,
  migrate,
  pickMetrics,
  startQueueBox,
  writeConfig,
} from '../lib/queuebox.mjs';
import {
  RESULTS_DIR,
  freePort,
  log,
  percentile,
  round,
  sleep,
  waitFor,
} from '../lib/util.mjs';
import { measureDelivery } from './delivery.mjs';
import { explainOutboxClaim } from './explain.mjs';
import { loadOutbox } from './load.mjs';

const METRIC_FAMILIES = [
  'queuebox_outbox_messages_total',
  'queuebox_outbox_publish_duration_seconds',
  'queuebox_outbox_processing_duration_seconds',
  'hikaricp_connections_acquire_seconds',
  'hikaricp_connections_usage_seconds',
  'hikaricp_connections_pending',
  'hikaricp_connections_max',
  'queuebox_claims_lost_total',
];

export function outboxConfig(sink, httpPort) {
  return {
    server: { httpPort },
    destinations: { sink: { type: 'http', baseUrl: sink.url, path: sink.path } },
    routes: [{ topicPattern: '**', destination: 'sink' }],
  };
}

async function prepare(ctx, id, db) {
  const httpPort = await freePort();
  const config = outboxConfig(ctx.sink, httpPort);
  const configFile = writeConfig(`${ctx.stamp}-${id}`, config);
  migrate(db, configFile);
  return { httpPort, config, configFile, settings: describeSettings(db, config, configFile) };
}

export async function queueboxThroughput(ctx, { id, title, keys, profile = false }) {
  const { options } = ctx;
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const { httpPort, configFile, settings } = await prepare(ctx, id, db);
    const sql = connect(db, { max: 1 });
    try {
      const loading = await loadOutbox(sql, {
        rows: options.rows,
        keys,
        batch: options['load-batch'],
        payloads: ctx.payloads,
        analyze: !options['no-analyze'],
      });
      log(
        `  loaded ${options.rows} rows in ${loading.seconds} s (${loading.rowsPerSecond} rows/s)`,
      );
      let explain = null;
      if (!options['no-explain'] && !profile) {
        explain = await explainOutboxClaim(sql);
        if (explain.claim)
          log(
            `  EXPLAIN ANALYZE claim of 100 on ${options.rows} pending: first ${round(explain.claim.firstMs, 2)} ms, median ${round(explain.claim.medianMs, 2)} ms; completion of 100: median ${round(explain.complete.medianMs, 2)} ms`,
          );
      }
      const profileDir = join(RESULTS_DIR, 'profiles', `${ctx.stamp}-${id}`);
      if (profile) mkdirSync(profileDir, { recursive: true });
      const result = await measureDelivery(ctx, db, {
        label: id,
        rows: options.rows,
        role: 'queuebox',
        timeoutMs: options.timeout * 1000,
        start: () =>
          startQueueBox({
            label: `${ctx.stamp}-${id}-queuebox`,
            database: db,
            configFile,
            httpPort,
            nodeArgs: profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
          }),
        allDone: async () => {
          const [row] =
            await sql`select exists(select 1 from outbox where state in ('pending', 'processing')) as busy`;
          return !row.busy;
        },
      });
      const states =
        await sql`select state, count(*)::int as n from outbox group by state order by state`;
      const metrics = pickMetrics(result.metricsText ?? '', METRIC_FAMILIES);
      delete result.metricsText;
      const scenario = {
        id,
        system: 'QueueBox',
        title,
        rows: options.rows,
        keys,
        payloadBytes: options['body-bytes'],
        settings: {
          ...settings,
          statistics: options['no-analyze']
            ? 'no ANALYZE after loading (--no-analyze); autovacuum is off on this server, so the planner has no statistics'
            : 'ANALYZE after loading (autovacuum is off on this server; a production server would analyze on its own)',
          note: 'QueueBox defaults for everything else: outbox.batchSize 100, outbox.concurrency 8, outbox.pollIntervalMs 100, database.poolSize 10, capture polling',
        },
        loading,
        ...result,
        finalStates: Object.fromEntries(states.map((r) => [r.state, r.n])),
        queueboxMetrics: metrics,
        explain,
      };
      if (profile) scenario.profile = summarizeProfile(profileDir);
      return scenario;
    } finally {
      await sql.end();
    }
  });
}

export async function queueboxLatency(ctx, { id, title }) {
  const { options } = ctx;
  const rate = options['trickle-rate'];
  const seconds = options['trickle-seconds'];
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const { httpPort, configFile, settings } = await prepare(ctx, id, db);
    const sql = connect(db, { max: 1 });
    const activity = startActivitySampler({ database: db });
    ctx.setBackendSource(activity.backendPids);
    const loadBefore = loadAverage();
    const queuebox = await startQueueBox({
      label: `${ctx.stamp}-${id}-queuebox`,
      database: db,
      configFile,
      httpPort,
    });
    ctx.cpu.setRole(queuebox.pid, 'queuebox');
    const trickle = await startTrickle(db, options['body-bytes']);
    ctx.cpu.setRole(trickle.pid, 'trickle inserter');
    try {
      // Warm-up: 50 rows, then wait for them, so the pool and the sockets are open.
      await ctx.sink.reset({ recordTimes: true });
      await trickle.call({ cmd: 'warmup', n: 50 });
      await waitFor(async () => (await ctx.sink.summary()).unique >= 50, {
        timeoutMs: 30_000,
        what: 'warm-up rows',
      });
      await ctx.sink.reset({ recordTimes: true });

      const { ids, committed, dbTimes, tStart, tEnd } = await trickle.call({
        cmd: 'run',
        rate,
        seconds,
      });
      const total = ids.length;
      await waitFor(async () => (await ctx.sink.summary()).unique >= total, {
        timeoutMs: 30_000,
        what: 'trickle rows',
      }).catch((e) => log(`  ${e.message}`));
      const received = await ctx.sink.times(ids);
      const latencies = [];
      const fromDbClock = [];
      let missing = 0;
      for (let i = 0; i < total; i += 1) {
        if (received[i] === null) missing += 1;
        else {
          latencies.push(received[i] - committed[i]);
          fromDbClock.push(received[i] - dbTimes[i]);
        }
      }
      latencies.sort((a, b) => a - b);
      fromDbClock.sort((a, b) => a - b);
      const cpu = ctx.cpu.window(tStart, tEnd);
      const database = activity.window(tStart, tEnd);
      const summary = await ctx.sink.summary();
      return {
        id,
        system: 'QueueBox',
        title,
        rows: total,
        keys: 0,
        payloadBytes: options['body-bytes'],
        settings: {
          ...settings,
          note: 'QueueBox defaults otherwise (outbox.pollIntervalMs 100, capture polling)',
        },
        trickle: {
          targetRatePerSecond: rate,
          achievedRatePerSecond: round(total / ((tEnd - tStart) / 1000), 1),
          seconds: round((tEnd - tStart) / 1000, 1),
          insert:
            'one row per INSERT (auto-commit), one connection, in a small process of its own; commit time = when the INSERT returned there',
        },
        figures: {
          latencyMs: {
            p50: round(percentile(latencies, 50), 1),
            p90: round(percentile(latencies, 90), 1),
            p99: round(percentile(latencies, 99), 1),
            max: round(latencies[latencies.length - 1] ?? null, 1),
            mean: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length), 1),
            min: round(latencies[0] ?? null, 1),
          },
          latencyFromDbClockMs: {
            p50: round(percentile(fromDbClock, 50), 1),
            p99: round(percentile(fromDbClock, 99), 1),
            min: round(fromDbClock[0] ?? null, 1),
            note: 'receipt − clock_timestamp() inside the INSERT (a little before its commit): a cross-check on the client-side commit time',
          },
          delivered: latencies.length,
          missing,
          duplicates: summary.duplicates,
        },
        loadAverage: { before: loadBefore, after: loadAverage() },
        cpu,
        database,
        log: queuebox.logFile,
        queueboxDist: queuebox.dist,
      };
    } finally {
      await trickle.stop();
      await queuebox.stop();
      await activity.stop();
      await sql.end();
    }
  });
}

async function startTrickle(database, bodyBytes) {
  const child = fork(
    fileURLToPath(new URL('../trickle.mjs', import.meta.url)),
    [JSON.stringify({ pg: PG, database, bodyBytes })],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`trickle inserter exited with ${code}`)));
  });
  child.removeAllListeners('exit');
  return {
    pid: child.pid,
    call: (message) =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send(message);
      }),
    async stop() {
      if (child.exitCode !== null) return;
      child.send({ cmd: 'stop' });
      await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
