#!/usr/bin/env node
/**
 * `node bench/src/client/ceiling.mjs [--clients 32] [--rows 100000] [--seconds 20] [--only a,b]`
 *
 * The ceiling of the pull target of issue 15 (completed messages per second against the
 * single-row commit rate of 32 connections), measured with pgbench (C, one thread per core, so
 * the client costs the server's two cores as little as possible) and, for the two statements
 * the bench itself compares, with postgres.js from Node as the bench does. Each case runs on a
 * fresh, migrated database of its own (the reference's schema and indexes), and reports its
 * rate, the WAL it wrote per transaction (pg_current_wal_lsn delta), its full-page images
 * (pg_stat_wal.wal_fpi delta; the counters are server-wide, so run it alone: under
 * `flock -x /work/wt/quiet.lock`), and how many of the inbox's updates were HOT.
 *
 * Rows carry ids and tokens pgbench can name (md5('id' || n)::uuid, md5('tk' || n)::uuid: as
 * scattered over the primary key as gen_random_uuid()), so every completion hits a row it owns:
 * client c completes rows c × (rows / clients) + 1 … (c + 1) × (rows / clients), each once. The
 * completion is the worker's statement text (inboxSql from the built @queuebox/inbox) with $1
 * and $2 bound to those expressions.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@queuebox/core';
import { inboxSql } from '@queuebox/inbox';
import { runMigrations } from '@queuebox/postgres';
import { connect, createDatabase, dropDatabase, PG } from '../lib/pg.mjs';
import { loadAverage } from '../lib/machine.mjs';
import { machineTicks, postmasterPid, serverCpuUs } from '../lib/server-cpu.mjs';
import { round } from '../lib/util.mjs';
import { pullSqlCeiling } from './pull-sql.mjs';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join('=')
    .split(/=?--/)
    .filter(Boolean)
    .map((a) => a.split('=')),
);
const CLIENTS = Number(args.clients ?? 32);
const ROWS = Number(args.rows ?? 100_000);
const SECONDS = Number(args.seconds ?? 20);
const REPEAT = Number(args.repeat ?? 1);
const ONLY = args.only ? new Set(args.only.split(',')) : null;
const SOURCE = 'bench_pull';
const PER_CLIENT = Math.floor(ROWS / CLIENTS);
const dir = mkdtempSync(join(tmpdir(), 'qb-ceiling-'));
const sqlText = inboxSql('postgresql');

/** The worker's completion with its two parameters bound to the row this transaction owns. */
const completion = sqlText.complete.text
  .replace(/--[^\n]*\n/g, '')
  .replace('$1', `md5('id' || :n)::uuid`)
  .replace('$2', `md5('tk' || :n)::uuid`)
  .replace(/\s+/g, ' ')
  .trim();
const nextRow = `\\set n :client_id * ${PER_CLIENT} + :i\n\\set i :i + 1\n`;

const SCRIPTS = {
  probe: 'INSERT INTO commit_probe (v) VALUES (1);\n',
  complete: `${nextRow}${completion}\n`,
  'complete-tx': `${nextRow}BEGIN;\n${completion}\nCOMMIT;\n`,
  'complete-tx-pipelined': `${nextRow}\\startpipeline\nBEGIN;\n${completion}\nCOMMIT;\n\\endpipeline\n`,
  claim: `${sqlText.claim.text.replace(/--[^\n]*\n/g, '').replace(/\s+/g, ' ').replace('$1', `'${SOURCE}'`).replaceAll('$1', `'${SOURCE}'`).replaceAll('$2', '100').replaceAll('$3', '30000').replaceAll('$4', '300').replace(/;\s*$/, '')};\n`,
};

const payload = `'{"seq":0,"key":null,"data":"' || substr(repeat(md5(n::text), 32), 1, 994) || '"}'`;

/** 100,000 pull rows as the bench loads them (ids and tokens nameable), in `state`. */
async function load(sql, state) {
  const processing = state === 'processing';
  await sql.unsafe(
    `INSERT INTO inbox (id, source, idempotency_key, payload, consumption, created_at,
                        state, claim_token, claimed_at, lease_expires_at)
     SELECT md5('id' || n)::uuid, $1, 'k' || n, (${payload})::jsonb, 'pull', clock_timestamp(),
            $2, ${processing ? `md5('tk' || n)::uuid` : 'NULL'},
            ${processing ? 'clock_timestamp()' : 'NULL'},
            ${processing ? `clock_timestamp() + interval '1 hour'` : 'NULL'}
     FROM generate_series(0, $3::int - 1) AS n`,
    [SOURCE, state, ROWS],
  );
  await sql`ANALYZE inbox`;
}

/** Claims every loaded row, 100 a transaction in row order, as claims do (non-HOT updates). */
async function claimAll(sql) {
  for (let from = 0; from < ROWS; from += 100) {
    await sql.unsafe(
      `UPDATE inbox SET state = 'processing', claim_token = md5('tk' || substr(idempotency_key, 2))::uuid,
              claimed_at = clock_timestamp(), lease_expires_at = clock_timestamp() + interval '1 hour'
       WHERE id IN (SELECT md5('id' || n)::uuid FROM generate_series($1::int, $2::int) AS n)`,
      [from, Math.min(from + 99, ROWS - 1)],
    );
  }
}

async function walNow(sql) {
  const [row] = await sql`SELECT pg_current_wal_lsn()::text AS lsn, wal_records::bigint AS records,
    wal_fpi::bigint AS fpi, wal_bytes::bigint AS bytes, wal_write::bigint AS writes,
    wal_sync::bigint AS syncs FROM pg_stat_wal`;
  const [cp] = await sql`SELECT checkpoints_timed::int + checkpoints_req::int AS n FROM pg_stat_bgwriter`;
  return { ...row, checkpoints: cp.n };
}

async function tableStats(sql, table) {
  const [row] = await sql`SELECT n_tup_upd::bigint AS upd, n_tup_hot_upd::bigint AS hot,
    n_tup_ins::bigint AS ins FROM pg_stat_user_tables WHERE relname = ${table}`;
  return row ?? { upd: 0n, hot: 0n, ins: 0n };
}

function pgbench(db, script, { clients = CLIENTS, transactions, seconds }) {
  const file = join(dir, `${script}.sql`);
  writeFileSync(file, SCRIPTS[script]);
  const argv = ['-h', PG.host, '-p', String(PG.port), '-U', PG.user, '-n', '-M', 'prepared'];
  argv.push('-c', String(clients), '-j', String(Math.min(2, clients)), '-D', 'i=0', '-f', file);
  if (transactions) argv.push('-t', String(transactions));
  else argv.push('-T', String(seconds));
  argv.push(db);
  const out = execFileSync('bash', ['-c', 'pgbench "$@" && times', 'pgbench', ...argv], {
    encoding: 'utf8',
    env: { ...process.env, PGPASSWORD: PG.password },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tps = Number(/tps = ([\d.]+) \(without/.exec(out)?.[1]);
  const done = Number(/number of transactions actually processed: (\d+)/.exec(out)?.[1]);
  const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
  const latency = Number(/latency average = ([\d.]+) ms/.exec(out)?.[1]);
  // `times`: the shell's own, then its children's (pgbench's) user and system time.
  const [, child] = out.trim().split('\n').slice(-2);
  const times = child.split(' ').map((t) => {
    const [, m, sec] = /(\d+)m([\d.]+)s/.exec(t);
    return Number(m) * 60 + Number(sec);
  });
  const clientCpuUs = (times[0] + times[1]) * 1e6;
  return { tps: round(tps, 0), transactions: done, failed, latencyMs: latency, clientCpuUs };
}

/** The same statements from Node (postgres.js, prepared, one loop per connection), as the bench. */
async function nodeLoop(db, what, { transactions, seconds }) {
  const sql = connect(db, { max: CLIENTS });
  try {
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    const until = start + (seconds ?? 0) * 1000;
    let count = 0;
    let affected = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; transactions ? i < transactions : performance.now() < until; i += 1) {
          if (what === 'probe') await sql`INSERT INTO commit_probe (v) VALUES (1)`;
          else {
            const n = c * PER_CLIENT + i;
            const result = await sql.unsafe(sqlText.complete.text, [md5uuid(`id${n}`), md5uuid(`tk${n}`)], {
              prepare: true,
            });
            affected += result.count;
          }
          count += 1;
        }
      }),
    );
    const took = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return { tps: round(count / took, 0), transactions: count, affected, clientCpuUs: cpu.user + cpu.system };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
/** PostgreSQL's md5(text)::uuid, computed here. */
function md5uuid(text) {
  const h = createHash('md5').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The pull's own SQL without a worker (pull-sql.mjs), from CLIENTS connections. */
async function leanPull(db) {
  const run = await pullSqlCeiling(db, { source: SOURCE, connections: CLIENTS });
  return {
    tps: run.completedPerSecond,
    transactions: run.rows,
    claims: run.claims,
    claimServerCpuUsPerRow: run.claimServerCpuUsPerRow,
    completeServerCpuUsPerRow: run.completeServerCpuUsPerRow,
    clientCpuUs: 0,
  };
}

const CASES = [
  ['probe', 'single-row INSERT into a one-index table, autocommit (the bench probe)', 'probe', null],
  ['probe-node', 'the same from postgres.js, as the bench runs it', 'probe', null],
  ['complete', 'completion alone, autocommit, freshly loaded processing rows', 'complete', 'processing'],
  ['complete-ckpt', 'the same right after a CHECKPOINT (every page first touched: full-page image)', 'complete', 'processing'],
  ['complete-claimed', 'completion alone on rows claimed by 1,000 batch UPDATEs (two versions a row)', 'complete', 'claimed'],
  ['complete-tx', 'BEGIN; completion; COMMIT, three round trips', 'complete-tx', 'processing'],
  ['complete-tx-pipelined', 'BEGIN; completion; COMMIT in one pipeline (one round trip)', 'complete-tx-pipelined', 'processing'],
  ['complete-node', 'completion alone from postgres.js (prepared), as the worker sends it', 'complete', 'processing'],
  ['claim', 'the worker claim, batch 100, 4 clients, on 100,000 pending rows (rows/s)', 'claim', 'pending'],
  ['claim-1', 'the same from 1 client (claims never overlap)', 'claim', 'pending'],
  ['pull-lean', 'claim 100, complete them from 32 connections, again (Node, no worker)', 'lean', 'pending'],
];

const results = [];
console.log(`ceiling: ${CLIENTS} clients, ${ROWS} rows, probe ${SECONDS} s, load before ${JSON.stringify(loadAverage())}`);
for (let pass = 1; pass <= REPEAT; pass += 1)
for (const [id, what, script, state] of CASES) {
  if (ONLY && !ONLY.has(id)) continue;
  const db = await createDatabase('qb_ceiling');
  const sql = connect(db, { max: 1 });
  try {
    await runMigrations(sql, { logger: silentLogger });
    if (script === 'probe') await sql`CREATE TABLE commit_probe (id bigserial PRIMARY KEY, v int NOT NULL)`;
    else if (state === 'claimed') {
      await load(sql, 'pending');
      await claimAll(sql);
    } else await load(sql, state);
    if (id === 'complete-ckpt') await sql`CHECKPOINT`;
    const table = script === 'probe' ? 'commit_probe' : 'inbox';
    const before = await walNow(sql);
    const stats0 = await tableStats(sql, table);
    const postmaster = await postmasterPid(sql);
    const server0 = serverCpuUs(postmaster);
    const machine0 = machineTicks();
    let run;
    if (script === 'lean') run = await leanPull(db);
    else if (id.endsWith('-node')) {
      run =
        script === 'probe'
          ? await nodeLoop(db, 'probe', { seconds: SECONDS })
          : await nodeLoop(db, 'complete', { transactions: PER_CLIENT });
    } else if (script === 'probe') run = pgbench(db, script, { seconds: SECONDS });
    else if (script === 'claim') {
      const clients = id === 'claim-1' ? 1 : 4;
      run = pgbench(db, script, { clients, transactions: ROWS / 100 / clients });
    }
    else run = pgbench(db, script, { transactions: PER_CLIENT });
    const server1 = serverCpuUs(postmaster);
    const machine1 = machineTicks();
    const after = await walNow(sql);
    await sql`SELECT pg_sleep(0.6)`; // backend stats reach the shared counters on exit
    const stats1 = await tableStats(sql, table);
    const [{ bytes }] = await sql`SELECT pg_wal_lsn_diff(${after.lsn}, ${before.lsn})::bigint AS bytes`;
    const txns = run.transactions;
    const upd = Number(stats1.upd - stats0.upd);
    const { clientCpuUs, ...figures } = run;
    const units = script === 'claim' ? upd : txns; // CPU per claimed row, else per transaction
    const row = {
      id,
      pass,
      what,
      ...figures,
      serverCpuUsPer: round((server1 - server0) / units, 1),
      clientCpuUsPer: round(clientCpuUs / units, 1),
      machineBusyPercent: round((100 * (machine1.busy - machine0.busy)) / (machine1.total - machine0.total), 0),
      walBytesPerTxn: round(Number(bytes) / txns, 0),
      walRecordsPerTxn: round(Number(after.records - before.records) / txns, 1),
      fpiPerTxn: round(Number(after.fpi - before.fpi) / txns, 2),
      walSyncs: Number(after.syncs - before.syncs),
      checkpointsDuring: after.checkpoints - before.checkpoints,
      ...(script === 'claim' ? { rowsPerSecond: round(upd / (txns / run.tps), 0) } : {}),
      updates: upd,
      hotUpdates: Number(stats1.hot - stats0.hot),
    };
    results.push(row);
    console.log(JSON.stringify(row));
  } finally {
    await sql.end({ timeout: 5 });
    await dropDatabase(db);
  }
}
console.log(`load after ${JSON.stringify(loadAverage())}`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const summary = new Map();
for (const r of results) summary.set(r.id, [...(summary.get(r.id) ?? []), r]);
const rate = (r) => r.rowsPerSecond ?? r.tps;
const probe = median((summary.get('probe') ?? []).map(rate));
const probeNode = median((summary.get('probe-node') ?? []).map(rate));
console.log('\nid                        median/s  (runs)                of probe  of probe-node  server µs  client µs  WAL B  FPI');
for (const [id, rs] of summary) {
  const m = median(rs.map(rate));
  const cell = (x) => (x ? String(round(m / x, 2)).padStart(8) : '       —');
  console.log(
    `${id.padEnd(24)} ${String(m).padStart(9)}  (${rs.map(rate).join(', ')})`.padEnd(62) +
      `${cell(probe)}  ${cell(probeNode)}     ${String(median(rs.map((r) => r.serverCpuUsPer))).padStart(7)}  ${String(median(rs.map((r) => r.clientCpuUsPer))).padStart(8)}  ${String(median(rs.map((r) => r.walBytesPerTxn))).padStart(6)}  ${median(rs.map((r) => r.fpiPerTxn))}`,
  );
}
