/**
 * `pnpm bench client`: the client packages' speed (issue 15). (1) 100,000 `enqueue` calls, each
 * in its own transaction, from 16 connections, beside a hand-written single-row INSERT;
 * `enqueueMany` of 1,000 rows a call beside a hand-written multi-row INSERT (targets: ≥ 0.9 of
 * the hand-written rate). (2) A pull source of 100,000 rows consumed by 4 workers (batchSize 100,
 * maxConcurrency 8, no-op handler) beside the single-row commit rate of 32 connections (target:
 * ≥ 0.6 of it), and the same rows through the pull's SQL with no worker at all (cl-pull-sql: the
 * ceiling the reference schema sets; the run prints both ratios). 1 KiB payloads, null keys, a
 * fresh database per scenario.
 */
import { silentLogger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import { wanted } from '../lib/args.mjs';
import { createContext, runScenarios } from '../lib/context.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { fmtInt, fmtRatio, printRunStart, saveResults, section, table } from '../lib/report.mjs';
import { round } from '../lib/util.mjs';
import { manyRows, singleRows } from './enqueue.mjs';
import { commitRate, pullSqlRate, pullThroughput } from './pull.mjs';

async function migrated(prefix, keep, body) {
  return withDatabase(prefix, keep, async (db) => {
    const sql = connect(db, { max: 1 });
    try {
      await runMigrations(sql, { logger: silentLogger });
    } finally {
      await sql.end({ timeout: 5 });
    }
    return body(db);
  });
}

export async function runClient(options) {
  const ctx = await createContext(options);
  const o = ctx.options;
  const keep = o['keep-db'];
  printRunStart('client', ctx.conditions);
  console.log(
    `${o.rows} rows of ${o['body-bytes']} B, null keys; enqueue from ${o['client-connections']} connections; enqueueMany ${o['many-rows']} rows a call from ${o['many-connections']}; pull: ${o['pull-workers']} workers, batchSize ${o['pull-batch']}, maxConcurrency ${o['pull-concurrency']}; commit rate from ${o['commit-connections']} connections over ${o.duration} s`,
  );
  const scenario = (id, what, fn) => [
    id,
    async () => ({ id, what, figures: await migrated(`qb_client_${id.replace(/-/g, '_')}`, keep, (db) => fn(ctx, db)) }),
  ];
  const plan = [
    scenario('cl-enqueue', 'enqueue, one row a transaction', (c, db) => singleRows(c, db, 'client')),
    scenario('cl-enqueue-raw', 'hand-written single-row INSERT', (c, db) => singleRows(c, db, 'raw')),
    scenario('cl-many', 'enqueueMany, 1,000 rows a call', (c, db) => manyRows(c, db, 'client')),
    scenario('cl-many-raw', 'hand-written multi-row INSERT', (c, db) => manyRows(c, db, 'raw')),
    scenario('cl-pull', 'InboxWorker ×4, no-op handler', pullThroughput),
    scenario('cl-pull-sql', "the pull's SQL alone, no worker (ceiling)", pullSqlRate),
    scenario('cl-commit', 'single-row commits, 32 connections', commitRate),
  ].filter(([id]) => wanted(o, id));
  let scenarios;
  try {
    scenarios = await runScenarios(plan, o);
  } finally {
    await ctx.close();
  }
  const figure = (id, name) => scenarios.find((s) => s.id === id && !s.error)?.figures[name] ?? null;
  const ratio = (a, b) => (a !== null && b ? round(a / b, 2) : null);
  const enqueueRatio = ratio(figure('cl-enqueue', 'rowsPerSecond'), figure('cl-enqueue-raw', 'rowsPerSecond'));
  const manyRatio = ratio(figure('cl-many', 'rowsPerSecond'), figure('cl-many-raw', 'rowsPerSecond'));
  const pullRatio = ratio(figure('cl-pull', 'completedPerSecond'), figure('cl-commit', 'commitsPerSecond'));
  // The schema's own bound: the pull's SQL with no worker, against the same probe; and how close
  // the worker comes to that bound.
  const sqlCeiling = ratio(figure('cl-pull-sql', 'completedPerSecond'), figure('cl-commit', 'commitsPerSecond'));
  const ofCeiling = ratio(figure('cl-pull', 'completedPerSecond'), figure('cl-pull-sql', 'completedPerSecond'));
  const result = {
    benchmark: 'client',
    startedAt: ctx.startedAt,
    finishedAt: new Date().toISOString(),
    options: Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'onlySet')),
    conditions: ctx.conditions,
    scenarios,
    targets: [
      { target: '(1) enqueue ≥ 0.9 × single-row INSERT', value: enqueueRatio, met: enqueueRatio === null ? null : enqueueRatio >= 0.9 },
      { target: '(1) enqueueMany ≥ 0.9 × multi-row INSERT', value: manyRatio, met: manyRatio === null ? null : manyRatio >= 0.9 },
      { target: '(2) pull completed/s ≥ 0.6 × single-row commits/s', value: pullRatio, met: pullRatio === null ? null : pullRatio >= 0.6 },
      { target: "    the pull's SQL alone (no worker) / single-row commits/s", value: sqlCeiling, met: null },
      { target: "    pull worker / the pull's SQL alone", value: ofCeiling, met: null },
    ],
  };
  section('client benchmark: results');
  console.log(
    table(
      ['id', 'what', 'rows or commits / s', 'seconds', 'server / process CPU µs each', 'machine busy'],
      scenarios.map((s) =>
        s.error
          ? [s.id, s.error, '—', '—', '—', '—']
          : [
              s.id,
              s.what,
              fmtInt(s.figures.rowsPerSecond ?? s.figures.completedPerSecond ?? s.figures.commitsPerSecond),
              s.figures.seconds,
              s.figures.serverCpuUsPer === undefined ? '—' : `${s.figures.serverCpuUsPer ?? '?'} / ${s.figures.processCpuUsPer}`,
              s.figures.machineBusyPercent === undefined ? '—' : `${s.figures.machineBusyPercent} %`,
            ],
      ),
    ),
  );
  console.log(
    table(
      ['target', 'value', 'met'],
      result.targets.map((t) => [t.target, fmtRatio(t.value), t.met === null ? '—' : t.met ? 'yes' : 'NO']),
    ),
  );
  saveResults('client', result);
  return result;
}
