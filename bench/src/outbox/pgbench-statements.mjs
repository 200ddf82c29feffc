/**
 * The outbox's claim and completion statements alone, under `pgbench` (one client, prepared
 * statements, per-statement latency with `-r`): a backlog of `--rows` rows of about 1 KiB is
 * loaded into a fresh database migrated by the built app, then each transaction claims `--batch`
 * rows with the build's own claim text and marks them `sent` with its own completion text, so
 * the backlog drains as it does under the poller. The texts come from packages/postgres/dist, so
 * a run measures the build in the tree.
 *
 *   node bench/src/outbox/pgbench-statements.mjs [--rows 100000] [--batch 100] [--keys 0]
 *        [--claims 200] [--claim-sql FILE]
 *
 * Prints pgbench's own report; the lines to read are the per-statement latencies.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { REPO_DIR } from '../lib/util.mjs';
import { DEFAULT_TABLES } from './explain.mjs';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    batch: { type: 'string', default: '100' },
    keys: { type: 'string', default: '0' },
    claims: { type: 'string', default: '200' },
    /** A claim text of your own to measure instead ($1 app now, $2 lease ms, $3 limit). */
    'claim-sql': { type: 'string' },
    host: { type: 'string', default: process.env.QUEUEBOX_BENCH_PGHOST ?? '127.0.0.1' },
    port: { type: 'string', default: process.env.QUEUEBOX_BENCH_PGPORT ?? '5432' },
    user: { type: 'string', default: process.env.QUEUEBOX_BENCH_PGUSER ?? 'postgres' },
  },
});
const rows = Number(values.rows);
const batch = Number(values.batch);
const keys = Number(values.keys);
const claims = Math.min(Number(values.claims), Math.floor(rows / batch));

const dist = (file) =>
  import(pathToFileURL(resolve(REPO_DIR, 'packages/postgres/dist', file)).href);
const claimModule = await dist('outbox/outbox-claim.js');
const completionModule = await dist('outbox/outbox-completion.js');

const pg = ['-h', values.host, '-p', values.port, '-U', values.user];
const database = `qb_pgbench_${process.pid}`;
function psql(db, command) {
  const result = spawnSync('psql', [...pg, '-v', 'ON_ERROR_STOP=1', '-qAt', db, '-c', command], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout;
}

psql('postgres', `CREATE DATABASE ${database}`);
try {
  const dir = mkdtempSync(join(tmpdir(), 'qb-pgbench-'));
  const config = join(dir, 'config.yml');
  writeFileSync(config, 'outbox: {}\n');
  const migrated = spawnSync(process.execPath, [join(REPO_DIR, 'apps/queuebox/dist/main.js'), 'migrate'], {
    env: {
      ...process.env,
      QUEUEBOX_CONFIG_FILE: config,
      QUEUEBOX_DATABASE_URL: `jdbc:postgresql://${values.host}:${values.port}/${database}`,
      QUEUEBOX_DATABASE_USERNAME: values.user,
      QUEUEBOX_DATABASE_PASSWORD: process.env.QUEUEBOX_BENCH_PGPASSWORD ?? '',
    },
    encoding: 'utf8',
  });
  if (migrated.status !== 0) throw new Error(migrated.stderr || migrated.stdout);
  const key = keys > 0 ? `'k' || (i % ${keys})` : 'NULL';
  psql(
    database,
    `INSERT INTO outbox (topic, key, payload)
     SELECT 'bench', ${key}, jsonb_build_object('seq', i, 'pad', repeat('x', 1000))
     FROM generate_series(1, ${rows}) AS i; ANALYZE outbox`,
  );

  const claimText = values['claim-sql']
    ? readFileSync(values['claim-sql'], 'utf8')
    : claimModule.claimStatementFor
    ? claimModule.claimStatementFor(DEFAULT_TABLES, batch)
    : claimModule.claimStatement(DEFAULT_TABLES, claimModule.candidateWindow(batch));
  const settings = claimModule.CLAIM_SETTINGS ?? [
    claimModule.ASYNC_COMMIT,
    claimModule.PLANNER_SETTINGS,
  ];
  const bind = (text, names) => names.reduce((t, name, i) => t.replaceAll(`$${i + 1}`, `:${name}`), text);
  const script = [
    'SELECT now()::text AS now \\gset',
    'BEGIN;',
    ...[settings].flat().map((s) => `${s};`),
    `${oneLine(bind(claimText, ['now', 'lease', 'limit']))};`,
    'COMMIT;',
    `SELECT array_agg(id)::text AS ids, array_agg(claim_token)::text AS tokens,
       array_agg('sent'::text)::text AS kinds, array_agg(NULL::float8)::text AS delays,
       array_agg(NULL::text)::text AS errors
     FROM outbox WHERE state = 'processing' \\gset`.replace(/\s+/g, ' '),
    'BEGIN;',
    `${completionModule.FENCED_WRITE_SETTINGS};`,
    // An all-'sent' batch, as the build writes it: its own statement where it has one.
    completionModule.completeSentStatement
      ? `${oneLine(bind(completionModule.completeSentStatement(DEFAULT_TABLES), ['now', 'ids', 'tokens']))};`
      : `${oneLine(bind(completionModule.completeStatement(DEFAULT_TABLES), ['now', 'ids', 'tokens', 'kinds', 'delays', 'errors']))};`,
    'COMMIT;',
  ];
  const file = join(dir, 'claim-complete.sql');
  writeFileSync(file, `\\set lease 60000\n\\set limit ${batch}\n${script.join('\n')}\n`);
  console.log(
    `pgbench: ${rows} rows, ${keys === 0 ? 'null keys' : `${keys} keys`}, ${claims} claims of ${batch} and their completions, script ${file}`,
  );
  const run = spawnSync(
    'pgbench',
    [...pg, '-n', '-M', 'prepared', '-r', '-c', '1', '-t', String(claims), '-f', file, database],
    { encoding: 'utf8' },
  );
  process.stdout.write(run.stdout);
  process.stderr.write(run.stderr);
  console.log(psql(database, `SELECT state, count(*) FROM outbox GROUP BY state ORDER BY state`));
} finally {
  psql('postgres', `DROP DATABASE ${database}`);
}

function oneLine(text) {
  return text.replace(/\s+/g, ' ');
}
