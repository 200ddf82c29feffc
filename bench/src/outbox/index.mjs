/**
 * `pnpm bench outbox`: by default the throughput comparison of issue 18 at every backlog size of
 * `--sizes` (30,000 and 100,000 rows), all on one sink process: the HTTP limit (the peers'
 * client, no database), the same with an outbox's claims and completions beside it (the ceiling
 * of any outbox), QueueBox (a) null keys and (b) 1 000 keys with the per-key order check,
 * pg-boss 10 and 12 (8 × work() with batches of 500, one work() with batches of 1,000) and
 * graphile-worker 0.17 and 0.18 (concurrency 8 and 32), then 1, 2 and 4 QueueBox replicas on one
 * backlog with 1 000 keys (replicas.mjs).
 * `--full` (or naming them in `--only`) adds (c) trickle latency with capture `polling` and
 * `postgres-logical`, webhook to destination through the relay, graphile-worker (b, one job
 * queue per key) and (c, LISTEN/NOTIFY), and `qb-cap-ab` (capture-ab.mjs). Prints a results
 * table with the conditions, the ratios, the issues' targets, and writes the JSON.
 */
import { onlyGiven, sizeLabel, wanted } from '../lib/args.mjs';
import { createContext, runScenarios } from '../lib/context.mjs';
import { outboxWorkLine } from '../lib/outbox-ceiling.mjs';
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
import { nodeOfMajor } from '../lib/machine.mjs';
import { log, ratio as div, round } from '../lib/util.mjs';
import { captureAbTargets, printCaptureAb } from './capture-ab-report.mjs';
import { CAPTURE_AB_ID, captureAb } from './capture-ab.mjs';
import { httpLimit } from './http-limit.mjs';
import { graphileThroughput, pgBossThroughput } from './peers-outbox.mjs';
import { graphileLatency, queueboxLatency, webhookLatency } from './latency.mjs';
import { queueboxThroughput } from './queuebox-outbox.mjs';
import { REPLICA_COUNTS, queueboxReplicas, replicaId } from './replicas.mjs';
import { LIMIT_PROCESS_COUNTS, replicaLimit, replicaLimitId } from './replica-limit.mjs';
import {
  printReplicas,
  replicaComparisons,
  replicaRatios,
  replicaTargets,
} from './replicas-report.mjs';
import { printStart, startScenario } from './start.mjs';
import { engineTargets } from './engine-targets.mjs';
import { toYaml } from '../lib/queuebox.mjs';

/** The peers of issue 18, in the order they run at each size. */
const PG_BOSS_RUNS = [
  { version: 10, workers: 8, batchSize: 500 },
  { version: 10, workers: 1, batchSize: 1000 },
  { version: 12, workers: 8, batchSize: 500 },
  { version: 12, workers: 1, batchSize: 1000 },
];
const GRAPHILE_RUNS = [
  { version: '0.17', concurrency: 8 },
  { version: '0.17', concurrency: 32 },
  { version: '0.18', concurrency: 8 },
  { version: '0.18', concurrency: 32 },
];
const pgBossId = (r, size) => `pgb${r.version}-${r.workers}x${r.batchSize}-${size}`;
const graphileId = (r, size) => `gw${r.version.split('.')[1]}-c${r.concurrency}-${size}`;

/** Issue 18's targets: the lower of 1.5 × the best peer and 0.6 × the HTTP limit; (b) 0.8 of (a). */
const PEER_FACTOR = 1.5;
const LIMIT_FACTOR = 0.6;
const KEYED_FACTOR = 0.8;
const FIRST_RECEIPT_MS = 250;

function throughputPlan(ctx) {
  const { options } = ctx;
  const keys = options.keys;
  const plan = [];
  /** A scenario of the plan: `run(ctx, { id, ...fields })` under its id. */
  const add = (id, run, fields) => plan.push([id, () => run(ctx, { id, ...fields })]);
  // QueueBox on Node.js 20 (what CI's test run uses), beside the Node.js 24 figures.
  const node20 = nodeOfMajor(20);
  for (const rows of options.sizeList) {
    const size = sizeLabel(rows);
    const n = rows.toLocaleString('en-US');
    add(`limit-${size}`, httpLimit, {
      title: `HTTP limit, ${n} bodies, ${options['peer-sockets']} sockets, no database`,
      rows,
    });
    add(`limit-db-${size}`, httpLimit, {
      title: `HTTP limit, ${n} bodies, ${options['peer-sockets']} sockets, with an outbox's claims and completions beside it`,
      rows,
      outboxWork: true,
    });
    add(`qb-a-${size}`, queueboxThroughput, { title: `(a) ${n} rows, null keys`, keys: 0, rows });
    if (node20 !== null)
      add(`qb-a-node20-${size}`, queueboxThroughput, {
        title: `(a) ${n} rows, null keys, QueueBox on Node.js ${node20.version}`,
        keys: 0,
        rows,
        execPath: node20.path,
      });
    // Tracing on at a sampler of 1.0 (apps/queuebox observability/tracing.ts): only when named,
    // e.g. `--only limit-30k,qb-a-30k,qb-a-otel-30k`, so (a) with and without run in one session.
    if (onlyGiven(options))
      add(`qb-a-otel-${size}`, queueboxThroughput, {
        title: `(a) ${n} rows, null keys, tracing on (OTLP/HTTP protobuf, sampler always_on)`,
        keys: 0,
        rows,
        tracing: true,
      });
    add(`qb-b-${size}`, queueboxThroughput, {
      title: `(b) ${n} rows, ${keys} keys, per-key order checked`,
      keys,
      rows,
    });
    for (const r of PG_BOSS_RUNS)
      add(pgBossId(r, size), pgBossThroughput, {
        title: `(a) ${n} rows, ${r.workers} × work(), batches of ${r.batchSize}`,
        keys: 0,
        rows,
        ...r,
      });
    for (const r of GRAPHILE_RUNS)
      add(graphileId(r, size), graphileThroughput, {
        title: `(a) ${n} rows, concurrency ${r.concurrency}`,
        keys: 0,
        queuePerKey: false,
        rows,
        ...r,
      });
    for (const processes of LIMIT_PROCESS_COUNTS)
      add(replicaLimitId(processes, size), replicaLimit, {
        title: `HTTP limit, ${n} bodies from ${processes} process${processes > 1 ? 'es' : ''} of ${options['peer-sockets']} sockets each, no database`,
        processes,
        rows,
      });
    for (const replicas of REPLICA_COUNTS)
      add(replicaId(replicas, size), queueboxReplicas, {
        title: `${replicas} replica${replicas > 1 ? 's' : ''}, ${n} rows, ${keys} keys, per-key order checked`,
        replicas,
        keys,
        rows,
      });
    if (options['cpu-prof'])
      add(`qb-a-prof-${size}`, queueboxThroughput, {
        title: `(a) ${n} rows, null keys, QueueBox under --cpu-prof (figures not comparable)`,
        keys: 0,
        rows,
        profile: true,
      });
  }
  return plan;
}

/** The scenarios of the earlier issues (4, 14): with --full, or named in --only. */
function otherPlan(ctx) {
  const { options } = ctx;
  const keys = options.keys;
  return [
    [
      'gw-b',
      () =>
        graphileThroughput(ctx, {
          id: 'gw-b',
          title: `(b) ${keys} keys, queue_name = key`,
          keys,
          queuePerKey: true,
          rows: options.rows,
          version: '0.17',
          concurrency: options['gw-concurrency'],
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
    [
      'start',
      () =>
        startScenario(ctx, {
          id: 'start',
          title: 'spawn to first receipt, one row pending: QueueBox against the bare start',
        }),
    ],
  ];
}

export async function runOutbox(options) {
  const ctx = await createContext(options);
  const startedMs = Date.now();
  printRunStart('outbox', ctx.conditions);
  console.log(
    `backlog sizes of the throughput comparison: ${options.sizeList.map((n) => n.toLocaleString('en-US')).join(', ')} rows; payload ≈ ${options['body-bytes']} B JSON, keys for (b): ${options.keys}, load batch ${options['load-batch']}; other scenarios: ${options.rows} rows${options.lock ? `; exclusive lock ${options.lock} taken around each scenario` : ''}`,
  );
  const inRun = ([id], byDefault) =>
    onlyGiven(options) ? wanted(options, id) : byDefault || options.full;
  const plan = [
    ...throughputPlan(ctx).filter((e) => inRun(e, true)),
    ...otherPlan(ctx).filter((e) => inRun(e, false)),
  ].filter(
    ([id]) =>
      !(
        options['no-peers'] &&
        !id.startsWith('qb') &&
        !id.startsWith('limit') &&
        !id.startsWith('rep')
      ),
  );
  log(`plan: ${plan.map(([id]) => id).join(', ')}`);
  let scenarios;
  try {
    scenarios = await runScenarios(plan, options);
  } finally {
    await ctx.close();
  }
  const result = summarize(ctx, scenarios, startedMs);
  print(result);
  saveResults('outbox', result);
  return result;
}

function byId(scenarios, id) {
  return scenarios.find((s) => s.id === id && !s.error);
}

const rateOf = (s) => s?.figures?.messagesPerSecond ?? null;
const yes = (value, ok) => (value === null || value === undefined ? null : ok);

/** Per backlog size: the limit, QueueBox (a) and (b), the best peer, issue 18's targets. */
function comparison(scenarios, rows) {
  const size = sizeLabel(rows);
  const limit = rateOf(byId(scenarios, `limit-${size}`));
  const ceiling = rateOf(byId(scenarios, `limit-db-${size}`));
  const a = byId(scenarios, `qb-a-${size}`);
  const b = byId(scenarios, `qb-b-${size}`);
  const peers = scenarios
    .filter((s) => !s.error && (s.system === 'pg-boss' || s.system === 'graphile-worker'))
    .filter((s) => s.rows === rows && s.keys === 0 && rateOf(s) !== null);
  const best = peers.reduce((x, s) => (x === null || rateOf(s) > rateOf(x) ? s : x), null);
  const bestRate = rateOf(best);
  const candidates = [bestRate && PEER_FACTOR * bestRate, limit && LIMIT_FACTOR * limit].filter(
    (x) => x,
  );
  const targetA = candidates.length ? round(Math.min(...candidates), 0) : null;
  const qa = rateOf(a);
  const qbb = rateOf(b);
  const firstA = a?.figures?.processStartToFirstReceiptMs ?? null;
  const firstB = b?.figures?.processStartToFirstReceiptMs ?? null;
  const engine = engineTargets(size, {
    a,
    limit: byId(scenarios, `limit-${size}`),
    ceiling: byId(scenarios, `limit-db-${size}`),
    bestPeer: best,
    toPeer: div(qa, bestRate),
    keyed: div(qbb, qa),
  });
  return {
    rows,
    size,
    limit,
    ceiling,
    queuebox: { a: qa, b: qbb, aFromStart: a?.figures?.messagesPerSecondFromStart ?? null },
    bestPeer: best ? { id: best.id, system: `${best.system} ${best.version}`, rate: bestRate } : null,
    targetA,
    engineRatios: engine.ratios,
    ratios: {
      aToBestPeer: div(qa, bestRate),
      aToLimit: div(qa, limit),
      ceilingToLimit: div(ceiling, limit),
      aToCeiling: div(qa, ceiling),
      bToA: div(qbb, qa),
      bestPeerToLimit: div(bestRate, limit),
      aFromStartToBestPeerFromStart: div(
        a?.figures?.messagesPerSecondFromStart,
        best?.figures?.messagesPerSecondFromStart,
      ),
    },
    targets: [
      {
        target: `${size}: (a) ≥ min(${PEER_FACTOR} × best peer, ${LIMIT_FACTOR} × HTTP limit) = ${fmtInt(targetA)} msg/s`,
        value: qa,
        met: qa === null || targetA === null ? null : qa >= targetA,
      },
      {
        target: `${size}: (b) 1,000 keys ≥ ${KEYED_FACTOR} × (a) measured (${fmtInt(qa && KEYED_FACTOR * qa)})`,
        value: qbb,
        met: qbb === null || qa === null ? null : qbb >= KEYED_FACTOR * qa,
      },
      {
        target: `${size}: (b) ≥ ${KEYED_FACTOR} × (a)'s target (${fmtInt(targetA && KEYED_FACTOR * targetA)})`,
        value: qbb,
        met: qbb === null || targetA === null ? null : qbb >= KEYED_FACTOR * targetA,
      },
      {
        target: `${size}: (b) per-key order violations = 0, all delivered`,
        value: b?.figures?.orderViolations ?? null,
        met: b ? b.figures.orderViolations === 0 && b.figures.delivered === b.rows : null,
      },
      {
        target: `${size}: (a) spawn to first receipt ≤ ${FIRST_RECEIPT_MS} ms`,
        value: firstA,
        met: yes(firstA, firstA <= FIRST_RECEIPT_MS),
      },
      {
        target: `${size}: (b) spawn to first receipt ≤ ${FIRST_RECEIPT_MS} ms`,
        value: firstB,
        met: yes(firstB, firstB <= FIRST_RECEIPT_MS),
      },
      {
        target: `${size}: goal (a) ≥ 2 × best peer and ≥ 10,000 msg/s`,
        value: qa,
        met: qa === null || bestRate === null ? null : qa >= 2 * bestRate && qa >= 10_000,
      },
      ...engine.targets,
    ],
  };
}

function summarize(ctx, scenarios, startedMs) {
  const rate = (id) => rateOf(byId(scenarios, id));
  const c = byId(scenarios, 'qb-c');
  const cc = byId(scenarios, 'qb-c-capture');
  const w = byId(scenarios, 'qb-w');
  const ab = byId(scenarios, CAPTURE_AB_ID);
  const latency = (s, p, limit) => ({
    value: s?.figures?.latencyMs?.[p] ?? null,
    met: s ? s.figures.missing === 0 && s.figures.latencyMs[p] <= limit : null,
  });
  const comparisons = ctx.options.sizeList
    .map((rows) => comparison(scenarios, rows))
    .filter(
      (x) => x.limit !== null || x.ceiling !== null || x.queuebox.a !== null || x.bestPeer !== null,
    );
  const replicaRuns = replicaComparisons(scenarios, ctx.options.sizeList);
  const targets = [
    ...comparisons.flatMap((x) => x.targets),
    ...comparisons.flatMap((x) => [
      {
        target: `${x.size}: (a) QueueBox ≥ 5,000 messages/s (issue 4)`,
        value: x.queuebox.a,
        met: yes(x.queuebox.a, x.queuebox.a >= 5000),
      },
      {
        target: `${x.size}: (b) QueueBox ≥ 3,000 messages/s (issue 4)`,
        value: x.queuebox.b,
        met: yes(x.queuebox.b, x.queuebox.b >= 3000),
      },
    ]),
    ...(c
      ? [
          {
            target: '(c) p50 latency < outbox.pollIntervalMs (100 ms)',
            value: c.figures.latencyMs.p50,
            met: c.figures.latencyMs.p50 < 100,
          },
        ]
      : []),
    ...(cc
      ? [
          { target: '(c) capture p50 ≤ 5 ms (issue 14)', ...latency(cc, 'p50', 5) },
          { target: '(c) capture p99 ≤ 25 ms (issue 14)', ...latency(cc, 'p99', 25) },
        ]
      : []),
    ...(w ? [{ target: '(w) webhook to destination p50 ≤ 15 ms (issue 14)', ...latency(w, 'p50', 15) }] : []),
    ...replicaTargets(replicaRuns),
    ...(ab ? captureAbTargets(ab) : []),
  ];
  const ratios = {};
  for (const x of comparisons) {
    ratios[`${x.size}: QueueBox (a) / best peer (${x.bestPeer?.id ?? '—'})`] = x.ratios.aToBestPeer;
    ratios[`${x.size}: QueueBox (a) / HTTP limit`] = x.ratios.aToLimit;
    ratios[
      `${x.size}: HTTP limit with an outbox's database work beside it / HTTP limit (the ceiling of any outbox)`
    ] = x.ratios.ceilingToLimit;
    ratios[`${x.size}: QueueBox (a) / the ceiling`] = x.ratios.aToCeiling;
    ratios[`${x.size}: QueueBox (b) / QueueBox (a)`] = x.ratios.bToA;
    Object.assign(ratios, x.engineRatios);
    const onNode20 = rateOf(byId(scenarios, `qb-a-node20-${x.size}`));
    if (onNode20 !== null) {
      ratios[`${x.size}: QueueBox (a) on Node.js 20 / best peer (${x.bestPeer?.id ?? '—'})`] = div(
        onNode20,
        x.bestPeer?.rate ?? null,
      );
      ratios[`${x.size}: QueueBox (a) on Node.js 20 / on Node.js 24`] = div(onNode20, x.queuebox.a);
    }
    const traced = rateOf(byId(scenarios, `qb-a-otel-${x.size}`));
    if (traced !== null)
      ratios[`${x.size}: QueueBox (a) tracing on (sampler 1.0) / tracing off`] = div(
        traced,
        x.queuebox.a,
      );
    ratios[`${x.size}: best peer / HTTP limit`] = x.ratios.bestPeerToLimit;
    ratios[`${x.size}: QueueBox (a) / best peer, both from start`] =
      x.ratios.aFromStartToBestPeerFromStart;
    for (const s of scenarios.filter(
      (p) => !p.error && p.rows === x.rows && (p.system === 'pg-boss' || p.system === 'graphile-worker'),
    ))
      ratios[`${x.size}: QueueBox (a) / ${s.id}`] = div(x.queuebox.a, rateOf(s));
  }
  if (rate('gw-b') && comparisons.length)
    ratios['QueueBox (b) / graphile-worker (b, queue per key)'] = div(
      comparisons[comparisons.length - 1].queuebox.b,
      rate('gw-b'),
    );
  Object.assign(ratios, replicaRatios(replicaRuns));
  if (ab) {
    ratios['QueueBox (a) capture / polling (medians of 3, qb-cap-ab)'] =
      ab.ratios?.messagesPerSecond ?? null;
    ratios['commits/s, 16 clients, capture / polling (medians of 3, qb-cap-ab)'] =
      ab.ratios?.commitsPerSecond ?? null;
  }
  return {
    ...resultHead('outbox', ctx, startedMs, scenarios, ['onlySet', 'sizeList']),
    comparisons,
    replicaComparisons: replicaRuns,
    ratios,
    targets,
  };
}

const cpuCell = (s) => {
  const p = s.cpu?.percentOfOneCore;
  if (!p) return '—';
  // Several worker processes (replicas, split clients): their sum.
  const group = Object.entries(p).filter(([role]) => /^(queuebox r|peer worker p)\d+$/.test(role));
  const worker = group.length
    ? round(
        group.reduce((a, [, v]) => a + v, 0),
        1,
      )
    : (p.queuebox ?? p['peer worker'] ?? 0);
  return `${worker}/${p.sink ?? 0}/${p['postgres (bench db)'] ?? 0}/${s.cpu.machineBusyPercent}`;
};

function print(result) {
  const ok = result.scenarios.filter((s) => !s.error);
  section('outbox benchmark: throughput (rows loaded first, then the worker started)');
  const cpuMs = (s) => {
    const c = s.figures.cpuMsPerMessage;
    return c ? `${c.worker ?? '—'}/${c.postgres ?? '—'}` : '—';
  };
  console.log(
    table(
      [
        'id',
        'system',
        'scenario',
        'rows',
        'msg/s 1st→last',
        'msg/s from start',
        'first→last s',
        'start→all done s',
        'start→1st ms',
        'order viol.',
        'dup',
        'CPU ms/msg worker/pg',
        'CPU% worker/sink/pg/machine',
        'busy% before',
        'load before → after',
      ],
      ok
        .filter((s) => s.figures?.messagesPerSecond !== undefined)
        .map((s) => [
          s.id,
          `${s.system}${s.version ? ` ${s.version}` : ''}`,
          s.title,
          s.figures.cappedAfterSeconds
            ? `${fmtInt(s.figures.delivered)} of ${fmtInt(s.rows)} (capped at ${s.figures.cappedAfterSeconds} s)`
            : s.figures.delivered === s.rows
              ? fmtInt(s.rows)
              : `${fmtInt(s.figures.delivered)} of ${fmtInt(s.rows)}`,
          fmtInt(s.figures.messagesPerSecond),
          fmtInt(s.figures.messagesPerSecondFromStart),
          s.figures.firstToLastReceiptSeconds,
          s.figures.wallSecondsStartToAllDone,
          s.figures.processStartToFirstReceiptMs,
          s.keys > 0 ? s.figures.orderViolations : 'n/a',
          s.figures.duplicates,
          cpuMs(s),
          cpuCell(s),
          s.quietCheck?.machineBusyPercentBefore ?? '—',
          `${fmtLoad(s.loadAverage.before)} → ${fmtLoad(s.loadAverage.after)}`,
        ]),
    ),
  );
  console.log(
    "msg/s 1st→last = (delivered − 1) / (last − first receipt); from start = delivered / (last receipt − spawn of the worker process). CPU ms/msg = ms of one core per delivered message over the first→last window (worker process / the scenario database's PostgreSQL backends). CPU% = percent of one core over that window (machine: % of all cores busy). busy% before = all cores, 2 s just before the scenario (others' work).",
  );
  if (result.comparisons.length > 0) {
    section('issue 18: QueueBox against the HTTP limit and the best peer, per backlog size');
    console.log(
      table(
        [
          'rows',
          'HTTP limit',
          'ceiling',
          'best peer',
          'QueueBox (a)',
          '(a) from start',
          'QueueBox (b)',
          '(a) target',
          '(a)/best',
          '(a)/limit',
          'ceiling/limit',
          '(a)/ceiling',
          '(b)/(a)',
          'best/limit',
        ],
        result.comparisons.map((x) => [
          fmtInt(x.rows),
          fmtInt(x.limit),
          fmtInt(x.ceiling),
          x.bestPeer ? `${fmtInt(x.bestPeer.rate)} (${x.bestPeer.id})` : '—',
          fmtInt(x.queuebox.a),
          fmtInt(x.queuebox.aFromStart),
          fmtInt(x.queuebox.b),
          fmtInt(x.targetA),
          fmtRatio(x.ratios.aToBestPeer),
          fmtRatio(x.ratios.aToLimit),
          fmtRatio(x.ratios.ceilingToLimit),
          fmtRatio(x.ratios.aToCeiling),
          fmtRatio(x.ratios.bToA),
          fmtRatio(x.ratios.bestPeerToLimit),
        ]),
      ),
    );
    if (result.comparisons.some((x) => x.ceiling !== null))
      console.log(
        "ceiling = the HTTP limit with an outbox's database work beside it (limit-db-<size>: QueueBox's claim and completion of 400 loaded rows per 400 responses, in a process of its own): no outbox that writes its rows can beat it on this machine.",
      );
  }
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
  printReplicas(result.replicaComparisons);
  printCaptureAb(ok.find((s) => s.id === CAPTURE_AB_ID));
  printStart(ok.find((s) => s.id === 'start'));
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
  const shown = new Set();
  for (const s of ok.filter((x) => x.system !== 'QueueBox' && x.settings)) {
    const key = `${s.system} ${s.version} ${JSON.stringify(s.settings)}`;
    if (shown.has(key)) continue;
    shown.add(key);
    console.log(`${s.id} (${s.system} ${s.version}): ${JSON.stringify(s.settings)}`);
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
        `  CPU % of one core: ${JSON.stringify(s.cpu.percentOfOneCore)}; machine busy ${s.cpu.machineBusyPercent}% of ${result.conditions.machine.nproc} cores over ${s.cpu.seconds} s; system (kernel) share per role: ${JSON.stringify(s.cpu.systemShareOfRole ?? {})}`,
      );
    if (s.database) {
      console.log(
        `  database: ${s.database.avgBusyBackends} busy backends on average (of ${s.database.avgConnections} connections; ${s.database.samples} samples every ${s.database.everyMs} ms)`,
      );
      console.log(`    by statement: ${JSON.stringify(s.database.busyBackendsByStatement)}`);
      console.log(`    by wait: ${JSON.stringify(s.database.busyBackendsByWait)}`);
    }
    const work = outboxWorkLine(s.figures);
    if (work) console.log(`  ${work}`);
    if (s.databaseTotals)
      console.log(
        `  database totals, spawn to all done: ${s.databaseTotals.commits} commits (${s.databaseTotals.commitsPerMessage} per message), ${s.databaseTotals.tuplesUpdatedPerMessage} rows updated per message, ${s.databaseTotals.walBytesPerMessage ?? '—'} WAL bytes per message (server-wide)`,
      );
    if (s.explain?.claim)
      console.log(
        `  EXPLAIN ANALYZE before start (${s.rows} pending): claim of ${s.explain.batch} (window ${s.explain.window}) first ${round(s.explain.claim.firstMs, 2)} ms, median ${round(s.explain.claim.medianMs, 2)} ms (+ planning ${round(s.explain.claim.planningMedianMs, 2)} ms); completion of ${s.explain.complete.rowsPerStatement} median ${round(s.explain.complete.medianMs, 2)} ms`,
      );
    if (s.explain?.skipped) console.log(`  EXPLAIN skipped: ${s.explain.skipped}`);
    if (s.byReplica)
      console.log(
        `  per replica: ${s.byReplica.map((r) => `r${r.replica} sent ${fmtInt(r.sent)}, claims lost ${r.claimsLost}, leases reclaimed ${r.reclaimed}, publish mean ${r.publishMeanMs ?? '—'} ms, processing mean ${r.processingMeanMs ?? '—'} ms, CPU ${r.cpuPercentOfOneCore ?? '—'}%`).join('; ')}`,
      );
    if (s.statements)
      console.log(
        `  statements (from the delivered rows' stamps): ${fmtInt(s.statements.claims)} claims of ${s.statements.rowsPerClaim} rows on average, ${fmtInt(s.statements.completions)} completions of ${s.statements.rowsPerCompletion}; a row in hand (claim → completion) p50 ${s.statements.inHandMs.p50} ms, p90 ${s.statements.inHandMs.p90} ms; a key waits (completion → claim of its next row) p50 ${s.statements.keyWaitsMs.p50} ms, p90 ${s.statements.keyWaitsMs.p90} ms`,
      );
    if (s.queueboxMetrics && Object.keys(s.queueboxMetrics).length)
      console.log(`  QueueBox /metrics at the end: ${JSON.stringify(s.queueboxMetrics)}`);
    if (s.profile?.byPackage) printProfile(s.profile, 12);
  }
  for (const s of result.scenarios.filter((x) => x.error))
    console.log(`\n${s.id} FAILED: ${s.error}`);
  section('ratios');
  for (const [k, v] of Object.entries(result.ratios)) console.log(`${k}: ${fmtRatio(v)}`);
  printTargets('targets (issues 4, 14, 18 and 39)', result.targets);
  printRunEnd(result);
}
