/**
 * The peers on the same job: graphile-worker 0.17 and pg-boss 10, one job per message whose
 * handler POSTs the payload to the same sink, each in its own fresh database and its own process.
 */
import { runMigrations } from 'graphile-worker';
import PgBoss from 'pg-boss';
import { startPeer } from '../lib/peer-process.mjs';
import { connect, connectionString, withDatabase } from '../lib/pg.mjs';
import { log } from '../lib/util.mjs';
import { measureDelivery } from './delivery.mjs';
import { loadGraphile, loadPgBoss } from './load.mjs';

export function graphileSettings(options) {
  return {
    concurrency: options['gw-concurrency'],
    concurrencyNote:
      options['gw-concurrency'] === 1
        ? "graphile-worker's default (1)"
        : `set to ${options['gw-concurrency']} (graphile-worker's default is 1): the same number of messages in flight as QueueBox's default outbox.concurrency 8`,
    maxPoolSize: '10 (default)',
    pollInterval: '2000 ms (default; LISTEN/NOTIFY wakes it, a backlog keeps it busy)',
    localQueue: 'off (default)',
    env: { NO_LOG_SUCCESS: '1 (graphile-worker otherwise logs one line per completed job)' },
    httpClient: `undici Pool, ${options['peer-sockets']} keep-alive sockets, no pipelining (as QueueBox's publisher)`,
  };
}

export async function graphileThroughput(ctx, { id, title, keys, queuePerKey }) {
  const { options } = ctx;
  return withDatabase('qb_bench_gw', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const url = connectionString(db);
    await runMigrations({ connectionString: url, logger: undefined });
    const sql = connect(db, { max: 1 });
    try {
      const loading = await loadGraphile(sql, {
        rows: options.rows,
        keys,
        batch: options['load-batch'],
        payloads: ctx.payloads,
        queuePerKey,
        analyze: !options['no-analyze'],
      });
      log(
        `  loaded ${options.rows} jobs in ${loading.seconds} s (${loading.rowsPerSecond} jobs/s)`,
      );
      const result = await measureDelivery(ctx, db, {
        label: id,
        rows: options.rows,
        role: 'peer worker',
        timeoutMs: options.timeout * 1000,
        capSeconds: queuePerKey ? options['gw-b-seconds'] : null,
        start: () =>
          startPeer(
            'graphile-runner.mjs',
            `${ctx.stamp}-${id}-graphile`,
            {
              connectionString: url,
              concurrency: options['gw-concurrency'],
              sinkUrl: `${ctx.sink.url}${ctx.sink.path}`,
              sockets: options['peer-sockets'],
            },
            { NO_LOG_SUCCESS: '1' },
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
        title,
        rows: options.rows,
        keys,
        payloadBytes: options['body-bytes'],
        settings: {
          ...graphileSettings(options),
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

export function pgBossSettings(options) {
  const cap = Math.round((options['pgboss-workers'] * options['pgboss-batch']) / 0.5);
  return {
    workers: `${options['pgboss-workers']} × boss.work() (v10 has no teamSize; each work() call is one polling loop)`,
    batchSize: options['pgboss-batch'],
    pollingIntervalSeconds: '0.5 (the minimum pg-boss allows)',
    handler:
      'POSTs all jobs of the batch concurrently, returns when all answered; pg-boss completes the batch in one statement',
    ceilingNote: `a worker that finishes a batch early waits out the rest of its polling interval, so the configuration caps at about ${cap} jobs/s`,
    rationale:
      'what a user tuning pg-boss 10 for throughput would pick: big batches, minimum polling interval, several workers',
    other: 'pg-boss defaults (pool max 10, supervise, retryLimit 2, expireIn 15 min)',
    httpClient: `undici Pool, ${options['peer-sockets']} keep-alive sockets, no pipelining (as QueueBox's publisher)`,
  };
}

export async function pgBossThroughput(ctx, { id, title, keys }) {
  const { options } = ctx;
  const queue = 'bench';
  return withDatabase('qb_bench_pgb', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const url = connectionString(db);
    const loader = new PgBoss({ connectionString: url, supervise: false, schedule: false });
    loader.on('error', (e) => log(`  pg-boss (loader) error: ${e.message}`));
    await loader.start();
    await loader.createQueue(queue);
    const sql = connect(db, { max: 1 });
    try {
      const loading = await loadPgBoss(loader, sql, {
        rows: options.rows,
        keys,
        batch: options['load-batch'],
        payloads: ctx.payloads,
        queue,
        analyze: !options['no-analyze'],
      });
      await loader.stop({ graceful: false, wait: true });
      log(
        `  loaded ${options.rows} jobs in ${loading.seconds} s (${loading.rowsPerSecond} jobs/s)`,
      );
      const result = await measureDelivery(ctx, db, {
        label: id,
        rows: options.rows,
        role: 'peer worker',
        timeoutMs: options.timeout * 1000,
        start: () =>
          startPeer('pgboss-runner.mjs', `${ctx.stamp}-${id}-pgboss`, {
            connectionString: url,
            queue,
            workers: options['pgboss-workers'],
            batchSize: options['pgboss-batch'],
            pollingIntervalSeconds: 0.5,
            sinkUrl: `${ctx.sink.url}${ctx.sink.path}`,
            sockets: options['peer-sockets'],
          }),
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
        title,
        rows: options.rows,
        keys,
        payloadBytes: options['body-bytes'],
        settings: pgBossSettings(options),
        loading,
        ...result,
      };
    } finally {
      await sql.end();
    }
  });
}
