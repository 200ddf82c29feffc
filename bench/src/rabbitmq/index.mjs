/**
 * `pnpm bench rabbitmq`: the outbox to a durable topic exchange with a bound durable queue, by
 * QueueBox at its defaults (`outbox.concurrency` 8) and with `outbox.concurrency: 64`, beside a
 * plain amqplib client with 8 and 64 confirms in flight in the same run; then a loaded durable
 * queue stored into the inbox by a RabbitMQ source at its defaults. Figures, conditions, the
 * issue's targets (issue 13) and the JSON in bench/results/.
 */
import { wanted } from '../lib/args.mjs';
import { createContext, runScenarios } from '../lib/context.mjs';
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
import { brokerPid, maskedUrl, openBroker } from './broker.mjs';
import { plainThroughput } from './plain.mjs';
import { plainSource } from './plain-source.mjs';
import { queueboxPublish, queueboxSource } from './queuebox-rabbitmq.mjs';

export async function runRabbitmq(options) {
  const ctx = await createContext(options);
  const broker = await openBroker();
  const pid = brokerPid();
  if (pid !== null) ctx.cpu.setRole(pid, 'rabbitmq');
  ctx.conditions.rabbitmq = { server: broker.version, url: maskedUrl(), pid };
  const startedMs = Date.now();
  section('rabbitmq benchmark: conditions');
  printConditions(ctx.conditions);
  console.log(`broker: ${broker.version} at ${maskedUrl()}${pid === null ? '' : ` (pid ${pid})`}`);
  console.log(`rows per scenario: ${options.rows}, payload ≈ ${options['body-bytes']} B JSON, null keys`);
  const plan = [
    ['mq-plain-8', () => plainThroughput(ctx, broker, { id: 'mq-plain-8', inFlight: 8 })],
    [
      'mq-plain-8-db',
      () => plainThroughput(ctx, broker, { id: 'mq-plain-8-db', inFlight: 8, outboxWork: true }),
    ],
    ['mq-plain-64', () => plainThroughput(ctx, broker, { id: 'mq-plain-64', inFlight: 64 })],
    [
      'mq-plain-64-db',
      () => plainThroughput(ctx, broker, { id: 'mq-plain-64-db', inFlight: 64, outboxWork: true }),
    ],
    ['mq-qb-8', () => queueboxPublish(ctx, broker, { id: 'mq-qb-8' })],
    ['mq-qb-64', () => queueboxPublish(ctx, broker, { id: 'mq-qb-64', concurrency: 64 })],
    ['mq-src', () => queueboxSource(ctx, broker, { id: 'mq-src' })],
    ['mq-src-plain', () => plainSource(ctx, broker, { id: 'mq-src-plain' })],
  ].filter(([id]) => wanted(options, id));
  let scenarios;
  try {
    scenarios = await runScenarios(plan, options);
  } finally {
    await broker.close();
    await ctx.close();
  }
  const result = summarize(ctx, scenarios, startedMs);
  print(result);
  const file = writeResults('rabbitmq', result);
  console.log(`\nJSON: ${file}`);
  return result;
}

function summarize(ctx, scenarios, startedMs) {
  const ok = (id) => scenarios.find((s) => s.id === id && !s.error);
  const rate = (id) => ok(id)?.figures?.messagesPerSecond ?? null;
  const ratio = (a, b) => (rate(a) && rate(b) ? round(rate(a) / rate(b), 2) : null);
  const src = ok('mq-src')?.figures;
  const stored = (id) => ok(id)?.figures?.storedPerSecond ?? null;
  const met = (value, test) => (value === null || value === undefined ? null : test(value));
  const targets = [
    {
      target: 'defaults (concurrency 8) ≥ 0.7 × plain client with 8 in flight',
      value: ratio('mq-qb-8', 'mq-plain-8'),
      met: met(ratio('mq-qb-8', 'mq-plain-8'), (v) => v >= 0.7),
    },
    {
      target: 'concurrency 64 ≥ 5,000 msg/s',
      value: rate('mq-qb-64'),
      met: met(rate('mq-qb-64'), (v) => v >= 5000),
    },
    {
      target: 'concurrency 64 ≥ 0.5 × plain client with 64 in flight',
      value: ratio('mq-qb-64', 'mq-plain-64'),
      met: met(ratio('mq-qb-64', 'mq-plain-64'), (v) => v >= 0.5),
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
      target: 'goal: 10,000 delivered/s (concurrency 64)',
      value: rate('mq-qb-64'),
      met: met(rate('mq-qb-64'), (v) => v >= 10000),
    },
  ];
  return {
    benchmark: 'rabbitmq',
    startedAt: ctx.startedAt,
    finishedAt: new Date().toISOString(),
    runtimeSeconds: round((Date.now() - startedMs) / 1000, 0),
    options: Object.fromEntries(Object.entries(ctx.options).filter(([k]) => k !== 'onlySet')),
    conditions: ctx.conditions,
    scenarios,
    ratios: {
      'QueueBox defaults / plain 8 in flight': ratio('mq-qb-8', 'mq-plain-8'),
      "plain 8 with an outbox's database work beside it / plain 8 (the ceiling of any outbox)": ratio('mq-plain-8-db', 'mq-plain-8'),
      'QueueBox concurrency 64 / plain 64 in flight': ratio('mq-qb-64', 'mq-plain-64'),
      "plain 64 with an outbox's database work beside it / plain 64 (the ceiling of any outbox at 64)": ratio('mq-plain-64-db', 'mq-plain-64'),
      'QueueBox concurrency 64 / that ceiling': ratio('mq-qb-64', 'mq-plain-64-db'),
      'source / a plain consumer keeping the source contract (prefetch 10)':
        stored('mq-src') && stored('mq-src-plain') ? round(stored('mq-src') / stored('mq-src-plain'), 2) : null,
    },
    targets,
  };
}

const cpuCell = (s) => {
  const p = s.cpu?.percentOfOneCore;
  if (!p) return '—';
  return `${p.queuebox ?? p.bench ?? 0}/${p.rabbitmq ?? 0}/${p['postgres (bench db)'] ?? 0}/${s.cpu.machineBusyPercent}`;
};

function print(result) {
  const ok = result.scenarios.filter((s) => !s.error);
  section('rabbitmq benchmark: outbox → exchange');
  console.log(
    table(
      ['id', 'system', 'scenario', 'rows', 'msg/s', 'first→last s', 'in queue', 'lost', 'CPU% client/broker/pg/machine', 'load before → after'],
      ok
        .filter((s) => s.figures?.messagesPerSecond !== undefined)
        .map((s) => [
          s.id,
          s.system,
          s.title,
          fmtInt(s.rows),
          fmtInt(s.figures.messagesPerSecond),
          s.figures.firstToLastSeconds,
          fmtInt(s.figures.inQueue),
          s.figures.lost,
          cpuCell(s),
          `${fmtLoad(s.loadAverage.before)} → ${fmtLoad(s.loadAverage.after)}`,
        ]),
    ),
  );
  const src = ok.find((s) => s.id === 'mq-src');
  const plainSrc = ok.find((s) => s.id === 'mq-src-plain');
  if (plainSrc) {
    const f = plainSrc.figures;
    console.log(`\nmq-src-plain (${plainSrc.title}): ${fmtInt(f.storedPerSecond)} stored/s, ${f.lost} lost, ${f.storedTwice} twice, ${f.leftInQueue} left, CPU% ${cpuCell(plainSrc)}`);
  }
  if (src) {
    section('rabbitmq benchmark: queue → inbox');
    const f = src.figures;
    console.log(
      table(
        ['rows', 'stored/s', 'first→last s', 'start→all s', 'stored', 'lost', 'twice', 'dead', 'left in queue', 'CPU% qb/broker/pg/machine'],
        [[fmtInt(src.rows), fmtInt(f.storedPerSecond), f.firstToLastSeconds, f.processStartToAllSeconds, f.stored, f.lost, f.storedTwice, f.dead, f.leftInQueue, cpuCell(src)]],
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
  for (const s of ok.filter((x) => x.system === 'amqplib')) console.log(`${s.id}: ${s.settings.client}`);
  for (const s of result.scenarios.filter((x) => x.error)) console.log(`\n${s.id} FAILED: ${s.error}`);
  section('ratios');
  for (const [k, v] of Object.entries(result.ratios)) console.log(`${k}: ${fmtRatio(v)}`);
  section('targets (issue 13)');
  console.log(
    table(
      ['target', 'measured', 'met'],
      result.targets.map((t) => [t.target, t.value, t.met === null ? 'not run' : t.met ? 'yes' : 'NO']),
    ),
  );
  section('conditions at the end');
  printConditions(result.conditions);
  distCheck(result.scenarios);
  log(`rabbitmq benchmark took ${result.runtimeSeconds} s`);
}
