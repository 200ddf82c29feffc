/**
 * `start`: spawn to first receipt. QueueBox at its defaults with one row pending, from the spawn
 * of its process to the sink's receipt of that row, against the bare start
 * (peers/start-runner.mjs: connect to PostgreSQL, read the row, POST it with undici). The two
 * alternate, one spawn each per round, so both see the same load; the figure is the median of
 * `--runs` rounds (at least 5). Each QueueBox round inserts a fresh row into the same migrated
 * database; the bare runner reads that row (already sent) without claiming it.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAverage } from '../lib/machine.mjs';
import { connect, connectionString, withDatabase } from '../lib/pg.mjs';
import { fmtLoad, section } from '../lib/report.mjs';
import { migrate, startQueueBox, writeConfig } from '../lib/queuebox.mjs';
import { RESULTS_DIR, freePort, log, now, round, waitFor } from '../lib/util.mjs';
import { outboxConfig } from './queuebox-outbox.mjs';

const RUNNER = fileURLToPath(new URL('../peers/start-runner.mjs', import.meta.url));
const MIN_ROUNDS = 5;

export async function startScenario(ctx, { id, title }) {
  const { options, sink } = ctx;
  const rounds = Math.max(MIN_ROUNDS, options.runs);
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}, ${rounds} rounds`);
    const httpPort = await freePort();
    const configFile = writeConfig(`${ctx.stamp}-${id}`, outboxConfig(sink, httpPort));
    migrate(db, configFile);
    const sql = connect(db, { max: 1 });
    const loadBefore = loadAverage();
    const queuebox = [];
    const bare = [];
    try {
      for (let round = 1; round <= rounds; round += 1) {
        await sql`insert into outbox (topic, payload) values ('bench.start', ${ctx.payloads.text(round, null)}::jsonb)`;
        queuebox.push(await timeQueueBox(ctx, db, configFile, httpPort, `${id}-${round}`));
        bare.push(await timeBare(ctx, db, `${id}-bare-${round}`));
        log(`  round ${round}: QueueBox ${queuebox.at(-1)} ms, bare ${bare.at(-1)} ms`);
      }
    } finally {
      await sql.end();
    }
    const q = median(queuebox);
    const b = median(bare);
    return {
      id,
      system: 'QueueBox start',
      title,
      rounds,
      loadAverage: { before: loadBefore, after: loadAverage() },
      figures: {
        queueboxSpawnToFirstReceiptMs: q,
        bareSpawnToFirstReceiptMs: b,
        ratio: b > 0 ? round(q / b, 2) : null,
        queueboxMs: queuebox,
        bareMs: bare,
      },
    };
  });
}

async function timeQueueBox(ctx, db, configFile, httpPort, label) {
  await ctx.sink.reset({ recordTimes: true });
  const worker = await startQueueBox({ label: `${ctx.stamp}-${label}`, database: db, configFile, httpPort });
  try {
    const first = await firstReceipt(ctx, label);
    return round(first - worker.startedAt, 0);
  } finally {
    await worker.stop();
  }
}

async function timeBare(ctx, db, label) {
  await ctx.sink.reset({ recordTimes: true });
  const logDir = join(RESULTS_DIR, 'logs');
  mkdirSync(logDir, { recursive: true });
  const fd = openSync(join(logDir, `${ctx.stamp}-${label}.log`), 'w');
  const options = { connection: connectionString(db), sinkUrl: `${ctx.sink.url}${ctx.sink.path}` };
  const startedAt = now();
  const child = spawn(process.execPath, [RUNNER, JSON.stringify(options)], {
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const first = await firstReceipt(ctx, label);
    return round(first - startedAt, 0);
  } finally {
    await exited;
  }
}

async function firstReceipt(ctx, label) {
  await waitFor(async () => (await ctx.sink.summary()).unique >= 1, {
    timeoutMs: 60_000,
    everyMs: 20,
    what: `${label}: the first receipt`,
  });
  return (await ctx.sink.summary()).first;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : round((sorted[mid - 1] + sorted[mid]) / 2, 0);
}

export function printStart(s) {
  if (!s) return;
  const f = s.figures;
  section('start: spawn to first receipt, one row pending (median of the rounds)');
  console.log(
    `QueueBox ${f.queueboxSpawnToFirstReceiptMs} ms, bare start (connect, read, POST with undici) ${f.bareSpawnToFirstReceiptMs} ms: ${f.ratio}x (target ≤ 1.5x); rounds QueueBox ${f.queueboxMs.join(', ')} ms, bare ${f.bareMs.join(', ')} ms; load ${fmtLoad(s.loadAverage.before)} → ${fmtLoad(s.loadAverage.after)}`,
  );
}
