/**
 * The latency scenarios of `pnpm bench outbox` (c): a trickle of single-row commits at a fixed
 * rate, insert (or webhook 202) to receipt at the sink.
 * - `qb-c`: QueueBox, capture `polling` (its default);
 * - `qb-c-capture`: QueueBox, capture `postgres-logical` (needs wal_level=logical);
 * - `gw-c`: graphile-worker, woken by LISTEN/NOTIFY, on the same trickle of `add_job` calls;
 * - `qb-w`: webhooks into a QueueBox HTTP source at `--webhook-rate`/s, through the relay and the
 *   outbox to the sink (202 to receipt).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runMigrations } from 'graphile-worker';
import { startActivitySampler } from '../lib/activity-sampler.mjs';
import { loadAverage } from '../lib/machine.mjs';
import { startPeer } from '../lib/peer-process.mjs';
import { PG, connect, connectionString, withDatabase } from '../lib/pg.mjs';
import { describeSettings, migrate, startQueueBox, writeConfig } from '../lib/queuebox.mjs';
import { freePort, log, percentile, round, sleep, waitFor } from '../lib/util.mjs';
import { graphileSettings } from './peers-outbox.mjs';
import { outboxConfig } from './queuebox-outbox.mjs';

/** QueueBox on an empty outbox; `capture` switches on postgres-logical capture. */
export async function queueboxLatency(ctx, { id, title, capture = false }) {
  const { options } = ctx;
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const httpPort = await freePort();
    const config = outboxConfig(ctx.sink, httpPort);
    if (capture) config.outbox = { capture: captureSettings(ctx, id) };
    const configFile = writeConfig(`${ctx.stamp}-${id}`, config);
    migrate(db, configFile);
    if (capture) await createPublication(db);
    return trickleLatency(ctx, db, {
      id,
      title,
      system: 'QueueBox',
      kind: 'outbox',
      rate: options['trickle-rate'],
      seconds: options['trickle-seconds'],
      settings: {
        ...describeSettings(db, config, configFile),
        note: capture
          ? 'QueueBox defaults otherwise (outbox.capture.reconciliationIntervalMs 1000); publication queuebox_outbox FOR TABLE outbox'
          : 'QueueBox defaults otherwise (outbox.pollIntervalMs 100, capture polling)',
      },
      start: async () => {
        const queuebox = await startQueueBox({
          label: `${ctx.stamp}-${id}-queuebox`,
          database: db,
          configFile,
          httpPort,
        });
        if (capture) await captureRunning(queuebox);
        return { ...queuebox, role: 'queuebox' };
      },
    });
  });
}

/** graphile-worker on the same trickle: `add_job` per statement, LISTEN/NOTIFY wakes it. */
export async function graphileLatency(ctx, { id, title }) {
  const { options } = ctx;
  return withDatabase('qb_bench_gw', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const url = connectionString(db);
    await runMigrations({ connectionString: url, logger: undefined });
    return trickleLatency(ctx, db, {
      id,
      title,
      system: 'graphile-worker',
      kind: 'graphile',
      rate: options['trickle-rate'],
      seconds: options['trickle-seconds'],
      settings: graphileSettings(options),
      start: async () => {
        const peer = await startPeer(
          'graphile-runner.mjs',
          `${ctx.stamp}-${id}-graphile`,
          {
            connectionString: url,
            concurrency: options['gw-concurrency'],
            sinkUrl: `${ctx.sink.url}${ctx.sink.path}`,
            sockets: options['peer-sockets'],
          },
          { NO_LOG_SUCCESS: '1' },
        );
        return { ...peer, role: 'peer worker' };
      },
    });
  });
}

/** Webhooks through the HTTP source, the relay and the outbox (polling mode, all defaults). */
export async function webhookLatency(ctx, { id, title }) {
  const { options } = ctx;
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const httpPort = await freePort();
    const config = {
      ...outboxConfig(ctx.sink, httpPort),
      sources: {
        hooks: { path: '/hooks', idempotencyKeyPath: '$.id', eventTypePath: '$.type' },
      },
    };
    const configFile = writeConfig(`${ctx.stamp}-${id}`, config);
    migrate(db, configFile);
    return trickleLatency(ctx, db, {
      id,
      title,
      system: 'QueueBox',
      kind: 'webhook',
      url: `http://127.0.0.1:${httpPort}/inbox/hooks`,
      idHeader: 'x-inbox-id',
      rate: options['webhook-rate'],
      seconds: options['trickle-seconds'],
      settings: {
        ...describeSettings(db, config, configFile),
        note: 'QueueBox defaults otherwise (inbox.relay.pollIntervalMs 100, outbox.pollIntervalMs 100, capture polling); the store wakes the relay and a forward wakes the poller, in process',
      },
      start: async () => {
        const queuebox = await startQueueBox({
          label: `${ctx.stamp}-${id}-queuebox`,
          database: db,
          configFile,
          httpPort,
        });
        return { ...queuebox, role: 'queuebox' };
      },
    });
  });
}

export function captureSettings(ctx, id) {
  return {
    mode: 'postgres-logical',
    enabled: true,
    // Required by the configuration (the reference's key); this build writes nothing there.
    stateDirectory: '/var/lib/queuebox/capture',
    // Slots are per server: a name of the run's own.
    slot: `qb_bench_${id.replaceAll('-', '_')}_${process.pid}`,
  };
}

export async function createPublication(db) {
  const sql = connect(db, { max: 1 });
  try {
    const [row] = await sql`SELECT current_setting('wal_level') AS level`;
    if (row.level !== 'logical')
      throw new Error(
        `capture needs wal_level=logical, and the server runs with ${row.level} (.ci/run sets it)`,
      );
    await sql`CREATE PUBLICATION queuebox_outbox FOR TABLE outbox`;
  } finally {
    await sql.end();
  }
}

/** /health/ready answers 200 before capture streams (it is advisory): wait for the component. */
export async function captureRunning(queuebox) {
  await waitFor(
    async () => {
      const response = await fetch(`${queuebox.base}/health`);
      const body = await response.json();
      return body.components?.['outbox-capture']?.status === 'up';
    },
    { timeoutMs: 60_000, everyMs: 50, what: 'outbox-capture up' },
  );
}

async function trickleLatency(ctx, db, scenario) {
  const { options } = ctx;
  const activity = startActivitySampler({ database: db });
  ctx.setBackendSource(activity.backendPids);
  const loadBefore = loadAverage();
  const worker = await scenario.start();
  ctx.cpu.setRole(worker.pid, worker.role);
  const trickle = await startTrickle(db, options['body-bytes'], scenario);
  ctx.cpu.setRole(trickle.pid, 'trickle');
  try {
    // Warm-up: 50 rows, then wait for them, so the pool and the sockets are open.
    await ctx.sink.reset({ recordTimes: true, idHeader: scenario.idHeader });
    await trickle.call({ cmd: 'warmup', n: 50 });
    await waitFor(async () => (await ctx.sink.summary()).unique >= 50, {
      timeoutMs: 30_000,
      what: 'warm-up rows',
    });
    await sleep(200);
    await ctx.sink.reset({ recordTimes: true, idHeader: scenario.idHeader });

    const { ids, committed, dbTimes, tStart, tEnd } = await trickle.call({
      cmd: 'run',
      rate: scenario.rate,
      seconds: scenario.seconds,
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
    const summary = await ctx.sink.summary();
    return {
      id: scenario.id,
      system: scenario.system,
      title: scenario.title,
      rows: total,
      keys: 0,
      payloadBytes: options['body-bytes'],
      settings: scenario.settings,
      trickle: {
        kind: scenario.kind,
        targetRatePerSecond: scenario.rate,
        achievedRatePerSecond: round(total / ((tEnd - tStart) / 1000), 1),
        seconds: round((tEnd - tStart) / 1000, 1),
        insert: TRICKLE_TEXT[scenario.kind],
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
        ...(scenario.kind === 'webhook'
          ? {}
          : {
              latencyFromDbClockMs: {
                p50: round(percentile(fromDbClock, 50), 1),
                p99: round(percentile(fromDbClock, 99), 1),
                min: round(fromDbClock[0] ?? null, 1),
                note: 'receipt − clock_timestamp() inside the statement (a little before its commit): a cross-check on the client-side commit time',
              },
            }),
        delivered: latencies.length,
        missing,
        duplicates: summary.duplicates,
      },
      loadAverage: { before: loadBefore, after: loadAverage() },
      cpu: ctx.cpu.window(tStart, tEnd),
      database: activity.window(tStart, tEnd),
      log: worker.logFile,
      ...(worker.dist ? { queueboxDist: worker.dist } : {}),
    };
  } finally {
    await trickle.stop();
    await worker.stop();
    await activity.stop();
  }
}

const TRICKLE_TEXT = {
  outbox:
    'one row per INSERT (auto-commit), one connection, in a small process of its own; commit time = when the INSERT returned there',
  graphile:
    "one graphile_worker.add_job per statement (auto-commit; its trigger NOTIFYs the worker), one connection, in a small process of its own; commit time = when the statement returned",
  webhook:
    'one POST to the HTTP source at a time, in a small process of its own; start = when its 202 (sent after the inbox commit) arrived',
};

async function startTrickle(database, bodyBytes, scenario) {
  const child = fork(
    fileURLToPath(new URL('../trickle.mjs', import.meta.url)),
    [JSON.stringify({ pg: PG, database, bodyBytes, kind: scenario.kind, url: scenario.url })],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`trickle exited with ${code}`)));
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
