/**
 * `pnpm bench outbox`: QueueBox (a) null keys, (b) 1 000 keys with the per-key order check,
 * (c) trickle latency with capture `polling` and `postgres-logical`, and webhook to destination
 * through the relay; graphile-worker (a), (b, one job queue per key) and (c, LISTEN/NOTIFY) and
 * pg-boss (a) on the same sink; `qb-cap-ab`, (a) and the application's commit rate with capture
 * polling and postgres-logical alternated three times (capture-ab.mjs); a results table with the
 * conditions, the ratios, the issues' targets, and the JSON.
 */
import { wanted } from '../lib/args.mjs';
import { createContext, runScenarios } from '../lib/context.mjs';
import {
  distCheck,
  fmtInt,
  fmtLoad,
  fmtRatio,
  printConditions,
  section,
  table,
  writeResults,
} from '../lib/report.mjs';
import { log, round } from '../lib/util.mjs';
import { captureAbTargets, printCaptureAb } from './capture-ab-report.mjs';
import { CAPTURE_AB_ID, captureAb } from './capture-ab.mjs';
import { graphileThroughput, pgBossThroughput } from './peers-outbox.mjs';
import { graphileLatency, queueboxLatency, webhookLatency } from './latency.mjs';
import { queueboxThroughput } from './queuebox-outbox.mjs';
import { toYaml } from '../lib/queuebox.mjs';

export async function runOutbox(options) {
  const ctx = await createContext(options);
  const startedMs = Date.now();
  section('outbox benchmark: conditions');
  printConditions(ctx.conditions);
  console.log(
    `rows per throughput scenario: ${options.rows}, payload ≈ ${options['body-bytes']} B JSON, keys for (b): ${options.keys}, load batch ${options['load-batch']}`,
  );
  const keys = options.keys;
  const plan = [
    ['qb-a', () => queueboxThroughput(ctx, { id: 'qb-a', title: '(a) null keys', keys: 0 })],
    [
      'gw-a',
      () =>
        graphileThroughput(ctx, {
          id: 'gw-a',
          title: '(a) null keys',
          keys: 0,
          queuePerKey: false,
        }),
    ],
    ['pgb-a', () => pgBossThroughput(ctx, { id: 'pgb-a', title: '(a) null keys', keys: 0 })],
    [
      'qb-b',
      () =>
        queueboxThroughput(ctx, {
          id: 'qb-b',
          title: `(b) ${keys} keys, per-key order checked`,
          keys,
        }),
    ],
    [
      'gw-b',
      () =>
        graphileThroughput(ctx, {
          id: 'gw-b',
          title: `(b) ${keys} keys, queue_name = key`,
          keys,
          queuePerKey: true,
        }),
    ],
    [
      'qb-c',
      () =>
        queueboxLatency(ctx, {
          id: 'qb-c',
          title: `(c) trickle ${options['trickle-rate']} rows/s for ${options['trickle-seconds']} s, capture polling`,
        }),
    ],
    [
      'qb-c-capture',
      () =>
        queueboxLatency(ctx, {
          id: 'qb-c-capture',
          title: `(c) trickle ${options['trickle-rate']} rows/s for ${options['trickle-seconds']} s, capture postgres-logical`,
          capture: true,
        }),
    ],
    [
      'gw-c',
      () =>
        graphileLatency(ctx, {
          id: 'gw-c',
          title: `(c) trickle ${options['trickle-rate']} add_job/s for ${options['trickle-seconds']} s, LISTEN/NOTIFY`,
        }),
    ],
    [
      'qb-w',
      () =>
        webhookLatency(ctx, {
          id: 'qb-w',
          title: `(w) ${options['webhook-rate']} webhooks/s for ${options['trickle-seconds']} s, through the relay`,
        }),
    ],
    [CAPTURE_AB_ID, () => captureAb(ctx)],
  ].filter(([id]) => wanted(options, id) && !(options['no-peers'] && !id.startsWith('qb')));
  if (options['cpu-prof'] && wanted(options, 'qb-a-prof')) {
    plan.push([
      'qb-a-prof',
      () =>
        queueboxThroughput(ctx, {
          id: 'qb-a-prof',
          title: '(a) null keys, QueueBox under --cpu-prof (figures not comparable)',
          keys: 0,
          profile: true,
        }),
    ]);
  }
  let scenarios;
  try {
    scenarios = await runScenarios(plan, options);
  } finally {
    await ctx.close();
  }
  const result = summarize(ctx, scenarios, startedMs);
  print(result);
  const file = writeResults('outbox', result);
  console.log(`\nJSON: ${file}`);
  return result;
}

function byId(scenarios, id) {
  return scenarios.find((s) => s.id === id && !s.error);
}

function summarize(ctx, scenarios, startedMs) {
  const rate = (id) => byId(scenarios, id)?.figures?.messagesPerSecond ?? null;
  const ratio = (a, b) => (rate(a) && rate(b) ? round(rate(a) / rate(b), 2) : null);
  const c = byId(scenarios, 'qb-c');
  const cc = byId(scenarios, 'qb-c-capture');
  const w = byId(scenarios, 'qb-w');
  const b = byId(scenarios, 'qb-b');
  const ab = byId(scenarios, CAPTURE_AB_ID);
  const latency = (s, p, limit) => ({
    value: s?.figures?.latencyMs?.[p] ?? null,
    met: s ? s.figures.missing === 0 && s.figures.latencyMs[p] <= limit : null,
  });
  const targets = [
    {
      target: '(a) QueueBox ≥ 5,000 messages/s',
      value: rate('qb-a'),
      met: rate('qb-a') === null ? null : rate('qb-a') >= 5000,
    },
    {
      target: '(b) QueueBox ≥ 3,000 messages/s',
      value: rate('qb-b'),
      met: rate('qb-b') === null ? null : rate('qb-b') >= 3000,
    },
    {
      target: '(b) per-key order violations = 0',
      value: b?.figures?.orderViolations ?? null,
      met: b ? b.figures.orderViolations === 0 && b.figures.delivered === b.rows : null,
    },
    {
      target: '(c) p50 latency < outbox.pollIntervalMs (100 ms)',
      value: c?.figures?.latencyMs?.p50 ?? null,
      met: c ? c.figures.latencyMs.p50 < 100 : null,
    },
    { target: '(c) capture p50 ≤ 5 ms (issue 14)', ...latency(cc, 'p50', 5) },
    { target: '(c) capture p99 ≤ 25 ms (issue 14)', ...latency(cc, 'p99', 25) },
    { target: '(w) webhook to destination p50 ≤ 15 ms (issue 14)', ...latency(w, 'p50', 15) },
    ...captureAbTargets(ab),
    {
      target: '(a) faster than graphile-worker',
      value: ratio('qb-a', 'gw-a'),
      met: ratio('qb-a', 'gw-a') === null ? null : ratio('qb-a', 'gw-a') > 1,
    },
    {
      target: '(a) faster than pg-boss',
      value: ratio('qb-a', 'pgb-a'),
      met: ratio('qb-a', 'pgb-a') === null ? null : ratio('qb-a', 'pgb-a') > 1,
    },
  ];
  return {
    benchmark: 'outbox',
    startedAt: ctx.startedAt,
    finishedAt: new Date().toISOString(),
    runtimeSeconds: round((Date.now() - startedMs) / 1000, 0),
    options: Object.fromEntries(Object.entries(ctx.options).filter(([k]) => k !== 'onlySet')),
    conditions: ctx.conditions,
    scenarios,
    ratios: {
      'QueueBox (a) / graphile-worker (a)': ratio('qb-a', 'gw-a'),
      'QueueBox (a) / pg-boss (a)': ratio('qb-a', 'pgb-a'),
      'QueueBox (b) / graphile-worker (b, queue per key)': ratio('qb-b', 'gw-b'),
      'QueueBox (a) capture / polling (medians of 3, qb-cap-ab)':
        ab?.ratios?.messagesPerSecond ?? null,
      'commits/s, 16 clients, capture / polling (medians of 3, qb-cap-ab)':
        ab?.ratios?.commitsPerSecond ?? null,
    },
    targets,
  };
}

const cpuCell = (s) => {
  const p = s.cpu?.percentOfOneCore;
  if (!p) return '—';
  const worker = p.queuebox ?? p['peer worker'] ?? 0;
  return `${worker}/${p.sink ?? 0}/${p['postgres (bench db)'] ?? 0}/${s.cpu.machineBusyPercent}`;
};

function print(result) {
  const ok = result.scenarios.filter((s) => !s.error);
  section('outbox benchmark: throughput (rows loaded first, then the worker started)');
  console.log(
    table(
      [
        'id',
        'system',
        'scenario',
        'rows',
        'msg/s',
        'first→last s',
        'start→all done s',
        'start→1st ms',
        'order viol.',
        'dup',
        'CPU% worker/sink/pg/machine',
        'busy% before',
        'load before → after',
      ],
      ok
        .filter((s) => s.figures?.messagesPerSecond !== undefined)
        .map((s) => [
          s.id,
          s.system,
          s.title,
          s.figures.cappedAfterSeconds
            ? `${fmtInt(s.figures.delivered)} of ${fmtInt(s.rows)} (capped at ${s.figures.cappedAfterSeconds} s)`
            : fmtInt(s.rows),
          fmtInt(s.figures.messagesPerSecond),
          s.figures.firstToLastReceiptSeconds,
          s.figures.wallSecondsStartToAllDone,
          s.figures.processStartToFirstReceiptMs,
          s.keys > 0 ? s.figures.orderViolations : 'n/a',
          s.figures.duplicates,
          cpuCell(s),
          s.quietCheck?.machineBusyPercentBefore ?? '—',
          `${fmtLoad(s.loadAverage.before)} → ${fmtLoad(s.loadAverage.after)}`,
        ]),
    ),
  );
  console.log(
    "CPU% = percent of one core over the first→last receipt window (machine: % of all cores busy). busy% before = all cores, 2 s just before the scenario (others' work).",
  );
  const latencyRuns = ok.filter((s) => s.trickle);
  if (latencyRuns.length > 0) {
    section('outbox benchmark: (c) insert-to-receipt and (w) webhook-to-receipt latency');
    console.log(
      table(
        [
          'id',
          'system',
          'scenario',
          'rows',
          'rate (target/achieved)',
          'p50 ms',
          'p90 ms',
          'p99 ms',
          'max ms',
          'missing',
          'CPU% qb/sink/pg/machine',
          'load before → after',
        ],
        latencyRuns.map((c) => [
          c.id,
          c.system,
          c.title,
          c.rows,
          `${c.trickle.targetRatePerSecond}/${c.trickle.achievedRatePerSecond}`,
          c.figures.latencyMs.p50,
          c.figures.latencyMs.p90,
          c.figures.latencyMs.p99,
          c.figures.latencyMs.max,
          c.figures.missing,
          cpuCell(c),
          `${fmtLoad(c.loadAverage.before)} → ${fmtLoad(c.loadAverage.after)}`,
        ]),
      ),
    );
  }
  printCaptureAb(ok.find((s) => s.id === CAPTURE_AB_ID));
  section('settings');
  const qb = ok.find((s) => s.system === 'QueueBox');
  if (qb) {
    console.log('QueueBox sets (everything else is its default):');
    console.log(
      Object.entries(qb.settings.env)
        .map(([k, v]) => `  ${k}=${v}`)
        .join('\n'),
    );
    console.log(
      `  YAML (${qb.settings.env.QUEUEBOX_CONFIG_FILE}):\n${toYaml(qb.settings.yaml, 4)}`,
    );
    console.log(`  ${qb.settings.note}`);
    console.log(`  statistics: ${qb.settings.statistics}`);
  }
  for (const system of ['graphile-worker', 'pg-boss']) {
    const s = ok.find((x) => x.system === system);
    if (s) console.log(`${system}: ${JSON.stringify(s.settings, null, 2)}`);
  }
  for (const s of ok.flatMap((x) => [x, ...(x.runs ?? [])]).filter((x) => x.loading))
    console.log(
      `loading ${s.id}: ${s.loading.seconds} s (${fmtInt(s.loading.rowsPerSecond)} rows/s) — ${s.loading.statement}`,
    );
  section('where the time goes (per scenario, first→last receipt window)');
  for (const s of ok.filter((x) => !x.runs)) {
    console.log(`\n${s.id} (${s.system} ${s.title}):`);
    if (s.cpu)
      console.log(
        `  CPU % of one core: ${JSON.stringify(s.cpu.percentOfOneCore)}; machine busy ${s.cpu.machineBusyPercent}% of ${result.conditions.machine.nproc} cores over ${s.cpu.seconds} s`,
      );
    if (s.database) {
      console.log(
        `  database: ${s.database.avgBusyBackends} busy backends on average (of ${s.database.avgConnections} connections; ${s.database.samples} samples every ${s.database.everyMs} ms)`,
      );
      console.log(`    by statement: ${JSON.stringify(s.database.busyBackendsByStatement)}`);
      console.log(`    by wait: ${JSON.stringify(s.database.busyBackendsByWait)}`);
    }
    if (s.explain?.claim)
      console.log(
        `  EXPLAIN ANALYZE before start (${s.rows} pending): claim of ${s.explain.batch} (window ${s.explain.window}) first ${round(s.explain.claim.firstMs, 2)} ms, median ${round(s.explain.claim.medianMs, 2)} ms (+ planning ${round(s.explain.claim.planningMedianMs, 2)} ms); completion of ${s.explain.complete.rowsPerStatement} median ${round(s.explain.complete.medianMs, 2)} ms`,
      );
    if (s.explain?.skipped) console.log(`  EXPLAIN skipped: ${s.explain.skipped}`);
    if (s.queueboxMetrics && Object.keys(s.queueboxMetrics).length)
      console.log(`  QueueBox /metrics at the end: ${JSON.stringify(s.queueboxMetrics)}`);
    if (s.profile?.byPackage) {
      console.log(
        `  --cpu-prof: event loop busy ${s.profile.busyPercent}% of ${s.profile.seconds} s; self time by package: ${s.profile.byPackage.map((p) => `${p.name} ${p.percent}%`).join(', ')}`,
      );
      console.log(
        `  self time attributed to the nearest library frame (who caused it): ${s.profile.byCausingPackage.map((p) => `${p.name} ${p.percent}%`).join(', ')}`,
      );
      console.log(
        `  top functions: ${s.profile.topFunctions
          .slice(0, 12)
          .map((p) => `${p.name} ${p.percent}%`)
          .join('; ')}`,
      );
    }
  }
  for (const s of result.scenarios.filter((x) => x.error))
    console.log(`\n${s.id} FAILED: ${s.error}`);
  section('ratios');
  for (const [k, v] of Object.entries(result.ratios)) console.log(`${k}: ${fmtRatio(v)}`);
  section('targets (issues 4 and 14)');
  console.log(
    table(
      ['target', 'measured', 'met'],
      result.targets.map((t) => [
        t.target,
        t.value,
        t.met === null ? 'not run' : t.met ? 'yes' : 'NO',
      ]),
    ),
  );
  section('conditions at the end');
  printConditions(result.conditions);
  distCheck(result.scenarios);
  log(`outbox benchmark took ${result.runtimeSeconds} s`);
}
