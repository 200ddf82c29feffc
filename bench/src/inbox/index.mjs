/**
 * `pnpm bench inbox`: (a) HTTP ingestion with autocannon beside the raw INSERT rate, (b) relay
 * throughput with the per-aggregate order check; a results table with the conditions, the issue's
 * targets, and the JSON.
 */
import { wanted } from '../lib/args.mjs';
import { createContext, runScenarios } from '../lib/context.mjs';
import { toYaml } from '../lib/queuebox.mjs';
import {
  fmtInt,
  fmtLoad,
  fmtRatio,
  printProfile,
  printRunEnd,
  printRunStart,
  printTargets,
  resultHead,
  saveResults,
  section,
  table,
} from '../lib/report.mjs';
import { round } from '../lib/util.mjs';
import { ingestHttp, ingestRaw } from './ingest.mjs';
import { relayThroughput } from './relay.mjs';

export async function runInbox(options) {
  const ctx = await createContext(options);
  const startedMs = Date.now();
  printRunStart('inbox', ctx.conditions);
  console.log(
    `(a) ${options.connections} connections, ${options.duration} s after ${options.warmup} s warm-up, body ≈ ${options['body-bytes']} B; (b) ${options.rows} rows over ${options.keys} aggregates`,
  );
  let headersSample = null;
  const plan = [
    [
      'in-a',
      async () => {
        const r = await ingestHttp(ctx);
        headersSample = r.storedRowSample?.headers ?? null;
        return r;
      },
    ],
    ['in-a-raw', () => ingestRaw(ctx, headersSample)],
    ['in-b', () => relayThroughput(ctx)],
  ].filter(([id]) => wanted(options, id));
  if (options['cpu-prof'] && wanted(options, 'in-a-prof'))
    plan.push(['in-a-prof', () => ingestHttp(ctx, { profile: true })]);
  let scenarios;
  try {
    scenarios = await runScenarios(plan, options);
  } finally {
    await ctx.close();
  }
  const result = summarize(ctx, scenarios, startedMs);
  print(result);
  saveResults('inbox', result);
  return result;
}

function summarize(ctx, scenarios, startedMs) {
  const a = scenarios.find((s) => s.id === 'in-a' && !s.error);
  const raw = scenarios.find((s) => s.id === 'in-a-raw' && !s.error);
  const b = scenarios.find((s) => s.id === 'in-b' && !s.error);
  const accepted = a?.figures.acceptedPerSecond ?? null;
  const rawRate = raw?.figures.insertsPerSecond ?? null;
  const ratio = accepted && rawRate ? round(accepted / rawRate, 2) : null;
  const relay = b?.figures.relayRowsPerSecond ?? null;
  return {
    ...resultHead('inbox', ctx, startedMs, scenarios),
    ratios: { 'QueueBox HTTP accepted/s ÷ raw INSERT/s': ratio },
    targets: [
      {
        target: '(a) ingestion ≥ 4,000 requests/s (202s)',
        value: accepted,
        met: accepted === null ? null : accepted >= 4000,
      },
      {
        target: '(a) ingestion ≥ 0.7 × raw INSERT rate',
        value: ratio,
        met: ratio === null ? null : ratio >= 0.7,
      },
      {
        target: '(a) no non-2xx answers',
        value: a?.figures.non2xx ?? null,
        met: a ? a.figures.non2xx === 0 : null,
      },
      {
        target: '(b) relay ≥ 5,000 rows/s',
        value: relay,
        met: relay === null ? null : relay >= 5000,
      },
      {
        target: '(b) per-aggregate order intact (outbox), no duplicates, nothing left',
        value: b
          ? `${b.figures.orderViolationsInOutbox} violations, ${b.figures.duplicateOutboxRows} duplicates, ${b.figures.outboxRows}/${b.rows} rows`
          : null,
        met: b
          ? b.figures.orderViolationsInOutbox === 0 &&
            b.figures.duplicateOutboxRows === 0 &&
            b.figures.outboxRows === b.rows
          : null,
      },
    ],
  };
}

function where(s, nproc) {
  if (s.cpu)
    console.log(
      `  CPU % of one core: ${JSON.stringify(s.cpu.percentOfOneCore)}; machine busy ${s.cpu.machineBusyPercent}% of ${nproc} cores over ${s.cpu.seconds} s`,
    );
  if (s.database) {
    console.log(
      `  database: ${s.database.avgBusyBackends} busy backends on average (of ${s.database.avgConnections} connections; ${s.database.samples} samples every ${s.database.everyMs} ms)`,
    );
    console.log(`    by statement: ${JSON.stringify(s.database.busyBackendsByStatement)}`);
    console.log(`    by wait: ${JSON.stringify(s.database.busyBackendsByWait)}`);
  }
  if (s.queueboxMetrics && Object.keys(s.queueboxMetrics).length)
    console.log(`  QueueBox /metrics at the end: ${JSON.stringify(s.queueboxMetrics)}`);
  if (s.outboxAfterRelay?.explain?.claim) {
    const e = s.outboxAfterRelay.explain;
    console.log(
      `  outbox as the relay left it (${s.outboxAfterRelay.table.pending} pending, ${s.outboxAfterRelay.table.n_dead_tup} dead tuples, ${s.outboxAfterRelay.table.total_size}, autovacuum runs ${s.outboxAfterRelay.table.autovacuum_count}): EXPLAIN ANALYZE claim of ${e.batch} median ${round(e.claim.medianMs, 2)} ms, completion median ${round(e.complete.medianMs, 2)} ms`,
    );
    console.log(
      `    claim plan: ${e.claimPlan
        .slice(0, 14)
        .map((l) => l.trim())
        .join(' | ')}`,
    );
  }
  if (s.deliveryWindow?.cpu) {
    console.log(
      `  after the relay finished, outbox delivery alone: CPU ${JSON.stringify(s.deliveryWindow.cpu.percentOfOneCore)}, machine ${s.deliveryWindow.cpu.machineBusyPercent}% over ${s.deliveryWindow.cpu.seconds} s`,
    );
    if (s.deliveryWindow.database)
      console.log(
        `    database by statement: ${JSON.stringify(s.deliveryWindow.database.busyBackendsByStatement)}`,
      );
  }
  if (s.profile?.byPackage) printProfile(s.profile, 14);
}

function print(result) {
  const ok = result.scenarios.filter((s) => !s.error);
  const a = ok.find((s) => s.id === 'in-a');
  const raw = ok.find((s) => s.id === 'in-a-raw');
  const b = ok.find((s) => s.id === 'in-b');
  const cpu = (s, role) => s.cpu?.percentOfOneCore?.[role] ?? '—';
  if (a || raw) {
    section('inbox benchmark: (a) ingestion');
    const rows = [];
    if (a)
      rows.push([
        'in-a',
        'QueueBox HTTP (HMAC) → inbox',
        fmtInt(a.figures.acceptedPerSecond),
        a.figures.accepted202,
        a.figures.non2xx,
        a.figures.latencyMs.p50,
        a.figures.latencyMs.p99,
        `${cpu(a, 'queuebox')}/${cpu(a, 'bench')}/${cpu(a, 'postgres (bench db)')}/${a.cpu?.machineBusyPercent ?? '—'}`,
        `${fmtLoad(a.loadAverage.before)} → ${fmtLoad(a.loadAverage.after)}`,
      ]);
    if (raw)
      rows.push([
        'in-a-raw',
        'raw INSERT … ON CONFLICT, 64 conns',
        fmtInt(raw.figures.insertsPerSecond),
        raw.figures.inserts,
        '—',
        '—',
        '—',
        `—/${cpu(raw, 'bench')}/${cpu(raw, 'postgres (bench db)')}/${raw.cpu?.machineBusyPercent ?? '—'}`,
        `${fmtLoad(raw.loadAverage.before)} → ${fmtLoad(raw.loadAverage.after)}`,
      ]);
    console.log(
      table(
        [
          'id',
          'what',
          'per second',
          'count',
          'non-2xx',
          'p50 ms',
          'p99 ms',
          'CPU% qb/loadgen/pg/machine',
          'load before → after',
        ],
        rows,
      ),
    );
    console.log(
      `ratio QueueBox / raw: ${fmtRatio(result.ratios['QueueBox HTTP accepted/s ÷ raw INSERT/s'])}`,
    );
    if (a)
      console.log(
        `status codes: ${JSON.stringify(a.figures.statusCodes)}; errors ${a.figures.errors}, timeouts ${a.figures.timeouts}; rows stored ${a.figures.rowsStoredForMainRun}`,
      );
  }
  if (b) {
    section('inbox benchmark: (b) relay');
    const f = b.figures;
    console.log(
      table(
        [
          'rows',
          'aggregates',
          'relay rows/s',
          'first→last s',
          'start→inbox empty s',
          'order viol. (outbox)',
          'dup',
          'outbox delivery msg/s',
          'sink order viol.',
          'CPU% qb/sink/pg/machine',
          'load before → after',
        ],
        [
          [
            fmtInt(b.rows),
            b.keys,
            fmtInt(f.relayRowsPerSecond),
            f.relayFirstToLastSeconds,
            f.wallSecondsStartToInboxEmpty,
            f.orderViolationsInOutbox,
            f.duplicateOutboxRows,
            fmtInt(f.outboxDeliveryPerSecond),
            f.sinkOrderViolations,
            `${cpu(b, 'queuebox')}/${cpu(b, 'sink')}/${cpu(b, 'postgres (bench db)')}/${b.cpu?.machineBusyPercent ?? '—'}`,
            `${fmtLoad(b.loadAverage.before)} → ${fmtLoad(b.loadAverage.after)}`,
          ],
        ],
      ),
    );
    console.log(
      `inbox states after: ${JSON.stringify(f.inboxStates)}; relay batches (distinct outbox created_at): ${f.relayBatches}; wall to all delivered ${f.wallSecondsStartToAllDelivered} s`,
    );
    console.log(`loading: ${b.loading.seconds} s — ${b.loading.statement}`);
  }
  section('settings');
  for (const s of ok) {
    console.log(`${s.id}:`);
    if (s.settings?.env) {
      console.log(
        Object.entries(s.settings.env)
          .map(([k, v]) => `  ${k}=${v}`)
          .join('\n'),
      );
      console.log(
        `  YAML:\n${toYaml({ ...s.settings.yaml, sources: Object.fromEntries(Object.entries(s.settings.yaml.sources ?? {}).map(([k, v]) => [k, { ...v, auth: { ...v.auth, secret: '***' } }])) }, 4)}`,
      );
      console.log(`  ${s.settings.note}`);
      if (s.settings.analyzeDuringRun)
        console.log(
          `  statistics: ${s.settings.analyzeDuringRun} (runs: ${s.figures.analyzeRunsDuringRun})`,
        );
    } else {
      console.log(`  ${JSON.stringify(s.settings)}`);
    }
    if (s.loadGenerator) console.log(`  load generator: ${JSON.stringify(s.loadGenerator)}`);
  }
  section('where the time goes');
  for (const s of ok) {
    console.log(`\n${s.id} (${s.title}):`);
    where(s, result.conditions.machine.nproc);
  }
  for (const s of result.scenarios.filter((x) => x.error))
    console.log(`\n${s.id} FAILED: ${s.error}`);
  printTargets('targets (issue 5)', result.targets);
  printRunEnd(result);
}
