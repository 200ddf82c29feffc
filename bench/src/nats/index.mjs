/**
 * `pnpm bench nats`: the outbox to a JetStream stream by QueueBox at its defaults
 * (`outbox.concurrency` 8), beside a plain nats client with 8 and 64 PubAcks in flight in the
 * same run (and with 8 while an outbox's claims and completions run beside it: the ceiling of any
 * outbox); then a loaded stream stored into the inbox by a NATS source at its defaults
 * (`batchSize` 100). Figures, conditions, the issue's targets (issue 20) and the JSON in
 * bench/results/.
 */
import { wanted } from '../lib/args.mjs';
import { createContext, runScenarios } from '../lib/context.mjs';
import { outboxWorkLine } from '../lib/outbox-ceiling.mjs';
import { toYaml } from '../lib/queuebox.mjs';
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
import { NATS_URL, openServer, serverPid } from './server.mjs';
import { plainThroughput } from './plain.mjs';
import { queueboxPublish, queueboxSource } from './queuebox-nats.mjs';

export async function runNats(options) {
  const ctx = await createContext(options);
  const server = await openServer();
  const pid = serverPid();
  if (pid !== null) ctx.cpu.setRole(pid, 'nats');
  ctx.conditions.nats = { server: server.version, url: NATS_URL, pid };
  const startedMs = Date.now();
  section('nats benchmark: conditions');
  printConditions(ctx.conditions);
  console.log(`server: ${server.version} at ${NATS_URL}${pid === null ? '' : ` (pid ${pid})`}`);
  console.log(`rows per scenario: ${options.rows}, payload ≈ ${options['body-bytes']} B JSON, null keys`);
  const plan = [
    ['nats-plain-8', () => plainThroughput(ctx, server, { id: 'nats-plain-8', inFlight: 8 })],
    [
      'nats-plain-8-db',
      () => plainThroughput(ctx, server, { id: 'nats-plain-8-db', inFlight: 8, outboxWork: true }),
    ],
    ['nats-plain-64', () => plainThroughput(ctx, server, { id: 'nats-plain-64', inFlight: 64 })],
    ['nats-lean-8', () => plainThroughput(ctx, server, { id: 'nats-lean-8', inFlight: 8, lean: true })],
    [
      'nats-lean-8-db',
      () => plainThroughput(ctx, server, { id: 'nats-lean-8-db', inFlight: 8, outboxWork: true, lean: true }),
    ],
    ['nats-qb', () => queueboxPublish(ctx, server, { id: 'nats-qb' })],
    ['nats-src', () => queueboxSource(ctx, server, { id: 'nats-src' })],
  ].filter(([id]) => wanted(options, id));
  let scenarios;
  try {
    scenarios = await runScenarios(plan, options);
  } finally {
    await server.close();
    await ctx.close();
  }
  const result = summarize(ctx, scenarios, startedMs);
  print(result);
  const file = writeResults('nats', result);
  console.log(`\nJSON: ${file}`);
  return result;
}

function summarize(ctx, scenarios, startedMs) {
  const ok = (id) => scenarios.find((s) => s.id === id && !s.error);
  const rate = (id) => ok(id)?.figures?.messagesPerSecond ?? null;
  const ratio = (a, b) => (rate(a) && rate(b) ? round(rate(a) / rate(b), 2) : null);
  const src = ok('nats-src')?.figures;
  const met = (value, test) => (value === null || value === undefined ? null : test(value));
  const targets = [
    {
      target: 'defaults ≥ 7,000 delivered/s',
      value: rate('nats-qb'),
      met: met(rate('nats-qb'), (v) => v >= 7000),
    },
    {
      target: 'source ≥ 4,000 stored/s',
      value: src?.storedPerSecond ?? null,
      met: met(src?.storedPerSecond, (v) => v >= 4000),
    },
    {
      target: 'source: 0 lost, 0 stored twice',
      value: src ? `${src.lost} lost, ${src.storedTwice} twice` : null,
      met: src ? src.lost === 0 && src.storedTwice === 0 : null,
    },
    {
      target: 'goal: 15,000 delivered/s (defaults)',
      value: rate('nats-qb'),
      met: met(rate('nats-qb'), (v) => v >= 15000),
    },
  ];
  return {
    benchmark: 'nats',
    startedAt: ctx.startedAt,
    finishedAt: new Date().toISOString(),
    runtimeSeconds: round((Date.now() - startedMs) / 1000, 0),
    options: Object.fromEntries(Object.entries(ctx.options).filter(([k]) => k !== 'onlySet')),
    conditions: ctx.conditions,
    scenarios,
    ratios: {
      'QueueBox defaults / plain 8 in flight': ratio('nats-qb', 'nats-plain-8'),
      "plain 8 with an outbox's database work beside it / plain 8 (the ceiling of any outbox)": ratio('nats-plain-8-db', 'nats-plain-8'),
      'QueueBox defaults / the ceiling': ratio('nats-qb', 'nats-plain-8-db'),
      'QueueBox defaults / plain 64 in flight': ratio('nats-qb', 'nats-plain-64'),
      "lean 8 with an outbox's database work beside it / lean 8 (the ceiling with the leanest client)": ratio('nats-lean-8-db', 'nats-lean-8'),
      'QueueBox defaults / the ceiling with the leanest client': ratio('nats-qb', 'nats-lean-8-db'),
    },
    targets,
  };
}

const cpuCell = (s) => {
  const p = s.cpu?.percentOfOneCore;
  if (!p) return '—';
  return `${p.queuebox ?? p.bench ?? 0}/${p.nats ?? 0}/${p['postgres (bench db)'] ?? 0}/${s.cpu.machineBusyPercent}`;
};

function print(result) {
  const ok = result.scenarios.filter((s) => !s.error);
  section('nats benchmark: outbox → stream');
  console.log(
    table(
      ['id', 'system', 'scenario', 'rows', 'msg/s', 'first→last s', 'in stream', 'lost', 'CPU% client/server/pg/machine', 'load before → after'],
      ok
        .filter((s) => s.figures?.messagesPerSecond !== undefined)
        .map((s) => [
          s.id,
          s.system,
          s.title,
          fmtInt(s.rows),
          fmtInt(s.figures.messagesPerSecond),
          s.figures.firstToLastSeconds,
          fmtInt(s.figures.inStream),
          s.figures.lost,
          cpuCell(s),
          `${fmtLoad(s.loadAverage.before)} → ${fmtLoad(s.loadAverage.after)}`,
        ]),
    ),
  );
  const src = ok.find((s) => s.id === 'nats-src');
  if (src) {
    section('nats benchmark: stream → inbox');
    const f = src.figures;
    console.log(
      table(
        ['rows', 'stored/s', 'first→last s', 'start→all s', 'stored', 'lost', 'twice', 'dead', 'left in stream', 'CPU% qb/server/pg/machine'],
        [[fmtInt(src.rows), fmtInt(f.storedPerSecond), f.firstToLastSeconds, f.processStartToAllSeconds, f.stored, f.lost, f.storedTwice, f.dead, f.leftInStream, cpuCell(src)]],
      ),
    );
  }
  console.log('CPU% = percent of one core over the first→last window (client = QueueBox, or this process for the plain client).');
  section('settings');
  for (const s of ok.filter((x) => x.system === 'QueueBox')) {
    console.log(`${s.id}: YAML (${s.settings.env.QUEUEBOX_CONFIG_FILE}):\n${toYaml(s.settings.yaml, 4)}`);
    console.log(`  ${s.settings.note}`);
    if (s.queueboxMetrics && Object.keys(s.queueboxMetrics).length)
      console.log(`  /metrics at the end: ${JSON.stringify(s.queueboxMetrics)}`);
  }
  for (const s of ok.filter((x) => x.system === 'nats.js')) {
    console.log(`${s.id}: ${s.settings.client}${s.settings.outboxWork ? `; beside it ${s.settings.outboxWork}` : ''}`);
    const work = outboxWorkLine(s.figures);
    if (work) console.log(`  ${work}`);
  }
  for (const s of result.scenarios.filter((x) => x.error)) console.log(`\n${s.id} FAILED: ${s.error}`);
  section('ratios');
  for (const [k, v] of Object.entries(result.ratios)) console.log(`${k}: ${fmtRatio(v)}`);
  section('targets (issue 20)');
  console.log(
    table(
      ['target', 'measured', 'met'],
      result.targets.map((t) => [t.target, t.value, t.met === null ? 'not run' : t.met ? 'yes' : 'NO']),
    ),
  );
  section('conditions at the end');
  printConditions(result.conditions);
  distCheck(result.scenarios);
  log(`nats benchmark took ${result.runtimeSeconds} s`);
}
