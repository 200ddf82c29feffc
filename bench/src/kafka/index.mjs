/**
 * `pnpm bench kafka`: the outbox to a topic of 6 partitions by QueueBox at its defaults
 * (`outbox.concurrency` 8) and with `outbox.concurrency: 64`, beside a plain kafkajs producer with
 * the same producer settings in the same run; then a loaded topic stored into the inbox by a
 * Kafka source at its defaults. Figures, conditions, the targets (issue 21) and the JSON
 * in bench/results/. Without a broker it prints why it is skipped and exits 0.
 */
import { wanted } from '../lib/args.mjs';
import { createContext, runScenarios } from '../lib/context.mjs';
import { toYaml } from '../lib/queuebox.mjs';
import { distCheck, fmtInt, fmtLoad, fmtRatio, printConditions, section, table, writeResults } from '../lib/report.mjs';
import { log, round } from '../lib/util.mjs';
import { KAFKA_BROKERS, PARTITIONS, brokerAnswers, openBroker } from './broker.mjs';
import { plainThroughput } from './plain.mjs';
import { queueboxPublish, queueboxSource } from './queuebox-kafka.mjs';

export async function runKafka(options) {
  if (!(await brokerAnswers())) {
    console.log(
      `SKIPPED kafka benchmark: no Kafka broker answers at ${KAFKA_BROKERS}. Start one (pnpm kafka:start 4) and run it again.`,
    );
    return { benchmark: 'kafka', skipped: true, scenarios: [] };
  }
  const ctx = await createContext(options);
  const broker = await openBroker();
  ctx.conditions.kafka = { server: broker.version, brokers: KAFKA_BROKERS, partitions: PARTITIONS };
  const startedMs = Date.now();
  section('kafka benchmark: conditions');
  printConditions(ctx.conditions);
  console.log(`broker: ${broker.version} at ${KAFKA_BROKERS}`);
  console.log(`rows per scenario: ${options.rows}, payload ≈ ${options['body-bytes']} B JSON, null keys, ${PARTITIONS} partitions`);
  const plan = [
    ['kf-plain-100', () => plainThroughput(ctx, broker, { id: 'kf-plain-100', batch: 100 })],
    ['kf-plain-500', () => plainThroughput(ctx, broker, { id: 'kf-plain-500', batch: 500 })],
    ['kf-qb-8', () => queueboxPublish(ctx, broker, { id: 'kf-qb-8' })],
    ['kf-qb-64', () => queueboxPublish(ctx, broker, { id: 'kf-qb-64', concurrency: 64 })],
    ['kf-src', () => queueboxSource(ctx, broker, { id: 'kf-src' })],
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
  console.log(`\nJSON: ${writeResults('kafka', result)}`);
  return result;
}

function summarize(ctx, scenarios, startedMs) {
  const ok = (id) => scenarios.find((s) => s.id === id && !s.error);
  const rate = (id) => ok(id)?.figures?.messagesPerSecond ?? null;
  const ratio = (a, b) => (rate(a) && rate(b) ? round(rate(a) / rate(b), 2) : null);
  const src = ok('kf-src')?.figures;
  const met = (value, test) => (value === null || value === undefined ? null : test(value));
  const best = ratio('kf-qb-64', 'kf-plain-500');
  return {
    benchmark: 'kafka',
    startedAt: ctx.startedAt,
    finishedAt: new Date().toISOString(),
    runtimeSeconds: round((Date.now() - startedMs) / 1000, 0),
    options: Object.fromEntries(Object.entries(ctx.options).filter(([k]) => k !== 'onlySet')),
    conditions: ctx.conditions,
    scenarios,
    ratios: {
      'QueueBox defaults / plain batches of 100': ratio('kf-qb-8', 'kf-plain-100'),
      'QueueBox concurrency 64 / plain batches of 500': best,
    },
    targets: [
      { target: 'QueueBox ≥ 0.5 × the plain producer', value: best, met: met(best, (v) => v >= 0.5) },
      {
        target: 'source: 0 lost, 0 stored twice',
        value: src ? `${src.lost} lost, ${src.storedTwice} twice` : null,
        met: src ? src.lost === 0 && src.storedTwice === 0 : null,
      },
    ],
  };
}

function print(result) {
  const ok = result.scenarios.filter((s) => !s.error);
  section('kafka benchmark: outbox → topic');
  console.log(
    table(
      ['id', 'system', 'scenario', 'rows', 'msg/s', 'first→last s', 'in topic', 'lost', 'load before → after'],
      ok
        .filter((s) => s.figures?.messagesPerSecond !== undefined)
        .map((s) => [
          s.id,
          s.system,
          s.title,
          fmtInt(s.rows),
          fmtInt(s.figures.messagesPerSecond),
          s.figures.firstToLastSeconds,
          fmtInt(s.figures.inTopic),
          s.figures.lost,
          `${fmtLoad(s.loadAverage.before)} → ${fmtLoad(s.loadAverage.after)}`,
        ]),
    ),
  );
  const src = ok.find((s) => s.id === 'kf-src');
  if (src) {
    section('kafka benchmark: topic → inbox');
    const f = src.figures;
    console.log(
      table(
        ['rows', 'stored/s', 'first→last s', 'start→all s', 'stored', 'lost', 'twice', 'dead'],
        [[fmtInt(src.rows), fmtInt(f.storedPerSecond), f.firstToLastSeconds, f.processStartToAllSeconds, f.stored, f.lost, f.storedTwice, f.dead]],
      ),
    );
  }
  section('settings');
  for (const s of ok.filter((x) => x.system === 'QueueBox')) {
    console.log(`${s.id}: YAML (${s.settings.env.QUEUEBOX_CONFIG_FILE}):\n${toYaml(s.settings.yaml, 4)}`);
    console.log(`  ${s.settings.note}`);
  }
  for (const s of ok.filter((x) => x.system === 'kafkajs')) console.log(`${s.id}: ${s.settings.client}`);
  for (const s of result.scenarios.filter((x) => x.error)) console.log(`\n${s.id} FAILED: ${s.error}`);
  section('ratios');
  for (const [k, v] of Object.entries(result.ratios)) console.log(`${k}: ${fmtRatio(v)}`);
  section('targets (issue 21)');
  console.log(
    table(
      ['target', 'measured', 'met'],
      result.targets.map((t) => [t.target, t.value, t.met === null ? 'not run' : t.met ? 'yes' : 'NO']),
    ),
  );
  distCheck(result.scenarios);
  log(`kafka benchmark took ${result.runtimeSeconds} s`);
}
