/**
 * (2) A pull source consumed by @queuebox/inbox workers in one process (no-op handler), beside
 * the machine's single-row commit rate from 32 connections measured in the same run: the
 * contract commits once per message, so that rate bounds what any pull worker can do.
 */
import { fromPostgresJs, InboxWorker } from '@queuebox/inbox';
import { connect } from '../lib/pg.mjs';
import { cpuAccount } from '../lib/server-cpu.mjs';
import { now, round, sleep } from '../lib/util.mjs';
import { pullSqlCeiling } from './pull-sql.mjs';

const SOURCE = 'bench_pull';

/** The source's `rows` pending pull rows of 1 KiB, then ANALYZE, as every pull scenario starts. */
async function loadPullRows(ctx, db) {
  const load = connect(db, { max: 4 });
  try {
    await load.unsafe(
      `INSERT INTO inbox (source, idempotency_key, payload, consumption, created_at)
       SELECT $1, 'k' || n, $2::text::jsonb, 'pull', clock_timestamp()
       FROM generate_series(1, $3::int) AS n`,
      [SOURCE, ctx.payloads.text(0, null), ctx.options.rows],
    );
    await load`ANALYZE inbox`;
  } finally {
    await load.end({ timeout: 5 });
  }
}

export async function pullThroughput(ctx, db) {
  const o = ctx.options;
  const rows = o.rows;
  await loadPullRows(ctx, db);
  const workers = o['pull-workers'];
  const perWorker = o['pull-concurrency'];
  // Each worker: its handlers' connections, plus the claim and the renewals.
  const sql = connect(db, { max: workers * (perWorker + 2) });
  const observe = connect(db, { max: 1 });
  const stop = new AbortController();
  let completed = 0;
  const cpu = await cpuAccount(observe);
  const started = now();
  const runs = Array.from({ length: workers }, () =>
    new InboxWorker(fromPostgresJs(sql), {
      source: SOURCE,
      batchSize: o['pull-batch'],
      maxConcurrency: perWorker,
      pollIntervalMs: 100,
    }).run(() => {
      completed += 1;
      return Promise.resolve();
    }, stop.signal),
  );
  try {
    const deadline = Date.now() + o.timeout * 1000;
    // The handlers' own count says when the end is near; only then is the database asked. A
    // count(*) over the source every 100 ms (as before) kept a backend busy half of the time
    // (about 110 ms a query on the growing table), on the same two cores as the workers.
    while (completed < rows) {
      if (Date.now() > deadline) throw new Error(`${rows - completed} messages unhandled after ${o.timeout} s`);
      await sleep(5);
    }
    for (;;) {
      const [row] = await observe`SELECT count(*)::int AS n FROM inbox
        WHERE source = ${SOURCE} AND state <> 'processed'`;
      if (row.n === 0) break;
      if (Date.now() > deadline) throw new Error(`${row.n} messages left after ${o.timeout} s`);
      await sleep(5);
    }
    const seconds = (now() - started) / 1000;
    const account = cpu.end(rows);
    return {
      rows,
      workers,
      batchSize: o['pull-batch'],
      maxConcurrency: perWorker,
      handled: completed,
      seconds: round(seconds, 2),
      completedPerSecond: round(rows / seconds, 0),
      // CPU per message: the server's, this process's (the workers) and the machine's busy share.
      ...account,
    };
  } finally {
    stop.abort();
    await Promise.all(runs);
    await sql.end({ timeout: 5 });
    await observe.end({ timeout: 5 });
  }
}

/**
 * The same rows through the pull's own SQL with no worker (pull-sql.mjs), from as many
 * connections as the workers' handlers have: the ceiling the schema sets for any worker.
 */
export async function pullSqlRate(ctx, db) {
  const o = ctx.options;
  await loadPullRows(ctx, db);
  const observe = connect(db, { max: 1 });
  try {
    const cpu = await cpuAccount(observe);
    const run = await pullSqlCeiling(db, {
      source: SOURCE,
      connections: o['pull-workers'] * o['pull-concurrency'],
      batch: o['pull-batch'],
    });
    return { ...run, ...cpu.end(run.rows) };
  } finally {
    await observe.end({ timeout: 5 });
  }
}

/** Autocommit single-row INSERTs from `connections` loops for `seconds`: commits per second. */
export async function commitRate(ctx, db) {
  const connections = ctx.options['commit-connections'];
  const seconds = ctx.options.duration;
  const sql = connect(db, { max: connections });
  try {
    await sql`CREATE TABLE commit_probe (id bigserial PRIMARY KEY, v int NOT NULL)`;
    let commits = 0;
    const cpu = await cpuAccount(sql);
    const until = now() + seconds * 1000;
    const started = now();
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (now() < until) {
          await sql`INSERT INTO commit_probe (v) VALUES (1)`;
          commits += 1;
        }
      }),
    );
    const took = (now() - started) / 1000;
    return {
      connections,
      seconds: round(took, 2),
      commits,
      commitsPerSecond: round(commits / took, 0),
      ...cpu.end(commits),
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
