/**
 * `pnpm bench kafka`: on one broker and in one run, `--runs` rounds (3) of, in this order:
 *   kf-plain-8     the plain kafkajs producer, 1 KiB records, acks all, 8 in flight (QueueBox's
 *                  default `outbox.concurrency`), alone;
 *   kf-plain-8-db  the same with QueueBox's outbox SQL beside it (the ceiling of any outbox);
 *   kf-plain-8-sticky the plain producer with QueueBox's partitioner (sticky for null keys),
 *                  recorded: what of QueueBox's rate its partitioning alone buys;
 *   kf-qb-8        QueueBox at its defaults, outbox → topic of 6 partitions;
 *   kf-src         a QueueBox Kafka source at its defaults storing a loaded topic into the inbox;
 *   kf-src-plain   a plain kafkajs consumer storing through the inbox store (the source's
 *                  yardstick).
 * Each round's ratios, their medians beside the targets, conditions and the JSON in
 * bench/results/. Rows per scenario: 10,000 unless `--rows` says otherwise. Without a broker it
 * prints why it is skipped and exits 0.
 */
import { runBrokerBench } from '../lib/broker-bench.mjs';
import { outboxWorkLine } from '../lib/outbox-ceiling.mjs';
import { queueboxPublish, queueboxSource } from '../lib/queuebox-broker.mjs';
import { toYaml } from '../lib/queuebox.mjs';
import { fmtInt, fmtLoad, fmtRatio, section, table } from '../lib/report.mjs';
import { round } from '../lib/util.mjs';
import { kafkaAdapter } from './adapter.mjs';
import { KAFKA_BROKERS, PARTITIONS, brokerAnswers, openBroker } from './broker.mjs';
import { plainThroughput } from './plain.mjs';
import { plainSource } from './plain-source.mjs';

const DEFAULT_ROWS = 10_000;
const IN_FLIGHT = 8;
const WARM_ROWS = 5_000;

const RATIOS = [
  {
    name: 'QueueBox defaults / plain producer, 8 in flight',
    of: ['kf-qb-8', 'kf-plain-8'],
    target: 0.6,
  },
  {
    name: "plain producer with an outbox's SQL beside it / alone (the ceiling, recorded)",
    of: ['kf-plain-8-db', 'kf-plain-8'],
  },
  { name: 'QueueBox defaults / that ceiling', of: ['kf-qb-8', 'kf-plain-8-db'] },
  {
    name: "QueueBox defaults / plain producer with QueueBox's partitioner (recorded)",
    of: ['kf-qb-8', 'kf-plain-8-sticky'],
  },
  { name: 'source / plain consumer storing through the inbox store', of: ['kf-src', 'kf-src-plain'], target: 0.8 },
];

export async function runKafka(options) {
  if (!(await brokerAnswers())) {
    console.log(
      `SKIPPED kafka benchmark: no Kafka broker answers at ${KAFKA_BROKERS}. Start one (pnpm kafka:start 4) and run it again.`,
    );
    return { benchmark: 'kafka', skipped: true, scenarios: [] };
  }
  if (!process.argv.some((arg) => arg === '--rows' || arg.startsWith('--rows='))) options.rows = DEFAULT_ROWS;
  // A QueueBox source runs in a new process each round while the plain consumer runs in the
  // bench's own, warm from the rounds before: both are timed after their first rows (JIT).
  if (!process.argv.some((arg) => arg.startsWith('--warm-rows'))) options['warm-rows'] = Math.min(WARM_ROWS, Math.floor(options.rows / 3));
  return runBrokerBench(options, {
    name: 'kafka',
    open: openBroker,
    conditions: (broker) => ({ server: broker.version, brokers: KAFKA_BROKERS, partitions: PARTITIONS }),
    where: (broker) => `broker: ${broker.version} at ${KAFKA_BROKERS}`,
    rowsNote: `, ${PARTITIONS} partitions, ${options.runs} rounds; the source scenarios timed after their first ${options['warm-rows']} rows`,
    rounds: options.runs,
    scenarios: (ctx, broker) => {
      const qb = kafkaAdapter(broker);
      return [
        ['kf-plain-8', (id) => plainThroughput(ctx, broker, { id, inFlight: IN_FLIGHT })],
        ['kf-plain-8-db', (id) => plainThroughput(ctx, broker, { id, inFlight: IN_FLIGHT, outboxWork: true })],
        ['kf-plain-8-sticky', (id) => plainThroughput(ctx, broker, { id, inFlight: IN_FLIGHT, sticky: true })],
        ['kf-qb-8', (id) => queueboxPublish(ctx, qb, { id })],
        ['kf-src', (id) => queueboxSource(ctx, qb, { id })],
        ['kf-src-plain', (id) => plainSource(ctx, broker, { id })],
      ];
    },
    summarize,
    print,
  });
}

const median = (values) => {
  const sorted = values.filter((v) => v !== null).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : round((sorted[mid - 1] + sorted[mid]) / 2, 2);
};

function summarize(ctx, scenarios) {
  const runs = ctx.options.runs;
  const rate = (id, run) => {
    const s = scenarios.find((x) => x.id === id && x.run === run && !x.error);
    return s?.figures?.messagesPerSecond ?? s?.figures?.storedPerSecond ?? null;
  };
  const ratios = RATIOS.map(({ name, of: [a, b], target }) => {
    const perRun = [];
    for (let run = 1; run <= runs; run++) {
      perRun.push(rate(a, run) && rate(b, run) ? round(rate(a, run) / rate(b, run), 2) : null);
    }
    const value = median(perRun);
    return { name, perRun, median: value, target: target ?? null, met: target === undefined || value === null ? null : value >= target };
  });
  const medians = {};
  for (const id of new Set(scenarios.filter((s) => !s.error).map((s) => s.id))) {
    medians[id] = median(Array.from({ length: runs }, (_, i) => rate(id, i + 1)));
  }
  const sources = scenarios.filter((s) => s.id === 'kf-src' && !s.error);
  return {
    medians,
    ratios,
    sourceIntegrity: sources.map((s) => ({ run: s.run, lost: s.figures.lost, storedTwice: s.figures.storedTwice })),
  };
}

function print(result) {
  const ok = result.scenarios.filter((s) => !s.error);
  section('kafka benchmark: every scenario');
  console.log(
    table(
      ['round', 'id', 'system', 'scenario', 'rows', 'msg/s', 'first→last s', 'lost', 'twice', 'load before → after'],
      ok.map((s) => [
        s.run,
        s.id,
        s.system,
        s.title,
        fmtInt(s.rows),
        fmtInt(s.figures.messagesPerSecond ?? s.figures.storedPerSecond),
        s.figures.firstToLastSeconds,
        s.figures.lost,
        s.figures.storedTwice ?? '—',
        `${fmtLoad(s.loadAverage.before)} → ${fmtLoad(s.loadAverage.after)}`,
      ]),
    ),
  );
  for (const s of ok.filter((x) => x.id === 'kf-plain-8-db')) {
    const line = outboxWorkLine(s.figures);
    if (line) console.log(`round ${s.run} ${s.id}: ${line}`);
  }
  section('settings');
  const seen = new Set();
  for (const s of ok) {
    if (seen.has(s.id)) continue;
    seen.add(s.id);
    if (s.system === 'QueueBox') {
      console.log(`${s.id}: YAML (${s.settings.env.QUEUEBOX_CONFIG_FILE}):\n${toYaml(s.settings.yaml, 4)}`);
      console.log(`  ${s.settings.note}`);
    } else {
      console.log(`${s.id}: ${s.settings.client}${s.settings.outboxWork ? `; ${s.settings.outboxWork}` : ''}`);
    }
  }
  for (const s of result.scenarios.filter((x) => x.error)) console.log(`\n${s.id} FAILED: ${s.error}`);
  section('medians of the rounds (msg/s, stored/s)');
  for (const [id, value] of Object.entries(result.medians)) console.log(`${id}: ${fmtInt(value)}`);
  section('ratios: each round, the median, the target');
  console.log(
    table(
      ['ratio', 'rounds', 'median', 'target', 'met'],
      result.ratios.map((r) => [
        r.name,
        r.perRun.map(fmtRatio).join(' '),
        fmtRatio(r.median),
        r.target === null ? 'recorded' : `≥ ${r.target}`,
        r.met === null ? '—' : r.met ? 'yes' : 'NO',
      ]),
    ),
  );
  for (const s of result.sourceIntegrity) console.log(`kf-src round ${s.run}: ${s.lost} lost, ${s.storedTwice} stored twice`);
}
