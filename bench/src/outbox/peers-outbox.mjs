/**
 * The peers on the same job, one job per message whose handler POSTs the payload to the same
 * sink, each in its own fresh database and its own process: graphile-worker 0.17 and 0.18,
 * pg-boss 10 and 12, all on the workspace's Node.js (the image's). The newer majors are installed
 * beside the older ones under npm aliases (bench/package.json).
 */
import { runPeerStep, startPeer } from '../lib/peer-process.mjs';
import { connect, connectionString, withDatabase } from '../lib/pg.mjs';
import { log, round } from '../lib/util.mjs';
import { measurePeerDelivery } from './delivery.mjs';
import { loadGraphile } from './load.mjs';
import { loadSettings } from '../lib/context.mjs';

/** The installed versions: `module` is the package name (or alias) the runner imports. */
export const GRAPHILE_VERSIONS = {
  '0.17': { module: 'graphile-worker' },
  '0.18': { module: 'graphile-worker-0.18' },
};
export const PG_BOSS_VERSIONS = {
  10: { module: 'pg-boss', major: 10 },
  12: { module: 'pg-boss-12', major: 12 },
};

/** Every peer runs on this process's Node.js; `execPath` stays a seam for another one. */
function runtime() {
  return { execPath: undefined, node: process.version };
}

export function graphileSettings(options, { concurrency = options['gw-concurrency'] } = {}) {
  return {
    concurrency,
    concurrencyNote:
      concurrency === 1
        ? "graphile-worker's default (1)"
        : `set to ${concurrency} (graphile-worker's default is 1)${concurrency === 8 ? ': the same number of messages in flight as QueueBox\'s default outbox.concurrency 8' : ''}`,
    maxPoolSize: '10 (default)',
    pollInterval: '2000 ms (default; LISTEN/NOTIFY wakes it, a backlog keeps it busy)',
    localQueue: 'off (default)',
    env: { NO_LOG_SUCCESS: '1 (graphile-worker otherwise logs one line per completed job)' },
    httpClient: `undici Pool, ${options['peer-sockets']} keep-alive sockets, no pipelining (as QueueBox's publisher)`,
  };
}

export async function graphileThroughput(
  ctx,
  { id, title, keys, queuePerKey, rows, version = '0.17', concurrency },
) {
  const { options } = ctx;
  const installed = GRAPHILE_VERSIONS[version];
  const { execPath, node } = runtime();
  return withDatabase('qb_bench_gw', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const url = connectionString(db);
    await runPeerStep(
      'graphile-runner.mjs',
      `${ctx.stamp}-${id}-graphile-migrate`,
      { phase: 'migrate', module: installed.module, connectionString: url },
      { execPath },
    );
    const sql = connect(db, { max: 1 });
    try {
      const loading = await loadGraphile(sql, {
        rows,
        keys,
        queuePerKey,
        ...loadSettings(ctx),
      });
      log(`  loaded ${rows} jobs in ${loading.seconds} s (${loading.rowsPerSecond} jobs/s)`);
      const result = await measurePeerDelivery(ctx, db, {
        id,
        rows,
        capSeconds: queuePerKey ? options['gw-b-seconds'] : null,
        start: () =>
          startPeer(
            'graphile-runner.mjs',
            `${ctx.stamp}-${id}-graphile`,
            {
              module: installed.module,
              connectionString: url,
              concurrency,
              sinkUrl: `${ctx.sink.url}${ctx.sink.path}`,
              sockets: options['peer-sockets'],
            },
            { NO_LOG_SUCCESS: '1' },
            { execPath },
          ),
        allDone: async () => {
          const [row] =
            await sql`select exists(select 1 from graphile_worker._private_jobs) as busy`;
          return !row.busy;
        },
      });
      delete result.metricsText;
      return {
        id,
        system: 'graphile-worker',
        version,
        title,
        rows,
        keys,
        payloadBytes: options['body-bytes'],
        settings: {
          ...graphileSettings(options, { concurrency }),
          node,
          queueName: queuePerKey
            ? 'queue_name = key (one job queue per key, its way of keeping order)'
            : 'none (parallel)',
          ...(queuePerKey
            ? {
                timeCap: `stopped after ${options['gw-b-seconds']} s (--gw-b-seconds); the rate is over the messages delivered until then`,
              }
            : {}),
        },
        loading,
        ...result,
      };
    } finally {
      await sql.end();
    }
  });
}

export function pgBossSettings(options, { major, workers, batchSize, burst }) {
  const cap = Math.round((workers * batchSize) / 0.5);
  return {
    workers: `${workers} × boss.work()${major === 10 ? ' (v10 has no teamSize; each work() call is one polling loop)' : ' (each work() call is one polling loop, as localConcurrency would start)'}`,
    batchSize,
    pollingIntervalSeconds: '0.5 (the minimum pg-boss allows)',
    ...(burst
      ? {
          burstWhenBatchFull:
            'true (12: a worker whose fetch came back full fetches again at once instead of waiting out its polling interval; off by default, what a user tuning for a backlog turns on)',
        }
      : {
          ceilingNote: `a worker that finishes a batch early waits out the rest of its polling interval, so the configuration caps at about ${cap} jobs/s`,
        }),
    handler:
      'POSTs all jobs of the batch concurrently, returns when all answered; pg-boss completes the batch in one statement',
    rationale: `what a user tuning pg-boss ${major} for throughput would pick: big batches, minimum polling interval${burst ? ', burst while batches come back full' : ''}`,
    other: 'pg-boss defaults (pool max 10, supervise, retryLimit, expiry)',
    httpClient: `undici Pool, ${options['peer-sockets']} keep-alive sockets, no pipelining (as QueueBox's publisher)`,
  };
}

export async function pgBossThroughput(
  ctx,
  { id, title, keys, rows, version = 10, workers, batchSize },
) {
  const { options } = ctx;
  const installed = PG_BOSS_VERSIONS[version];
  const { execPath, node } = runtime();
  const burst = installed.major >= 12;
  const queue = 'bench';
  return withDatabase('qb_bench_pgb', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const url = connectionString(db);
    const sql = connect(db, { max: 1 });
    try {
      const t0 = performance.now();
      await runPeerStep(
        'pgboss-runner.mjs',
        `${ctx.stamp}-${id}-pgboss-load`,
        {
          phase: 'load',
          module: installed.module,
          major: installed.major,
          connectionString: url,
          queue,
          rows,
          keys,
          batch: options['load-batch'],
          bodyBytes: ctx.payloads.bytes,
          filler: ctx.payloads.filler,
        },
        { execPath },
      );
      const seconds = (performance.now() - t0) / 1000;
      const analyze = !options['no-analyze'];
      if (analyze) await sql.unsafe('analyze pgboss.job');
      const loading = {
        seconds: round(seconds, 2),
        rowsPerSecond: round(rows / seconds, 0),
        analyzed: analyze,
        statement: `boss.insert(…) of pg-boss ${version} — ${options['load-batch']} jobs per call (in a process of its own, its start and schema creation included); ${analyze ? 'then ANALYZE pgboss.job' : 'no ANALYZE'}`,
      };
      log(`  loaded ${rows} jobs in ${loading.seconds} s (${loading.rowsPerSecond} jobs/s)`);
      const result = await measurePeerDelivery(ctx, db, {
        id,
        rows,
        start: () =>
          startPeer(
            'pgboss-runner.mjs',
            `${ctx.stamp}-${id}-pgboss`,
            {
              phase: 'work',
              module: installed.module,
              major: installed.major,
              connectionString: url,
              queue,
              workers,
              batchSize,
              pollingIntervalSeconds: 0.5,
              burstWhenBatchFull: burst,
              sinkUrl: `${ctx.sink.url}${ctx.sink.path}`,
              sockets: options['peer-sockets'],
            },
            {},
            { execPath },
          ),
        allDone: async () => {
          const [row] =
            await sql`select exists(select 1 from pgboss.job where name = ${queue} and state <> 'completed') as busy`;
          return !row.busy;
        },
      });
      delete result.metricsText;
      return {
        id,
        system: 'pg-boss',
        version: String(version),
        title,
        rows,
        keys,
        payloadBytes: options['body-bytes'],
        settings: {
          ...pgBossSettings(options, { major: installed.major, workers, batchSize, burst }),
          node,
        },
        loading,
        ...result,
      };
    } finally {
      await sql.end();
    }
  });
}
