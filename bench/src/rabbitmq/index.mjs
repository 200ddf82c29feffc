/**
 * `pnpm bench rabbitmq`: the outbox to a durable topic exchange with a bound durable queue, by
 * QueueBox at its defaults (`outbox.concurrency` 8) and with `outbox.concurrency: 64`, beside a
 * plain amqplib client with 8 and 64 confirms in flight in the same run; then a loaded durable
 * queue stored into the inbox by a RabbitMQ source at its defaults. Figures, conditions, the
 * issue's targets (issue 13) and the JSON in bench/results/.
 */
import { runBrokerBench } from '../lib/broker-bench.mjs';
import {
  cpuCell,
  figuresOf,
  printBrokerTail,
  printOutboxTable,
  printSourceTable,
  sourceTargets,
} from '../lib/broker-report.mjs';
import { queueboxPublish, queueboxSource } from '../lib/queuebox-broker.mjs';
import { fmtInt } from '../lib/report.mjs';
import { round } from '../lib/util.mjs';
import { rabbitmqAdapter } from './adapter.mjs';
import { brokerPid, maskedUrl, openBroker } from './broker.mjs';
import { plainThroughput } from './plain.mjs';
import { plainSource } from './plain-source.mjs';

const LABELS = {
  role: 'rabbitmq',
  cpu: 'broker',
  target: 'exchange',
  source: 'queue',
  count: ['inQueue', 'in queue'],
  left: ['leftInQueue', 'left in queue'],
};

export const runRabbitmq = (options) =>
  runBrokerBench(options, {
    name: 'rabbitmq',
    open: openBroker,
    pid: brokerPid,
    conditions: (broker, pid) => ({ server: broker.version, url: maskedUrl(), pid }),
    where: (broker, pid) => `broker: ${broker.version} at ${maskedUrl()}${pid === null ? '' : ` (pid ${pid})`}`,
    scenarios: (ctx, broker) => {
      const qb = rabbitmqAdapter(broker);
      return [
        ['mq-plain-8', (id) => plainThroughput(ctx, broker, { id, inFlight: 8 })],
        ['mq-plain-8-db', (id) => plainThroughput(ctx, broker, { id, inFlight: 8, outboxWork: true })],
        ['mq-plain-64', (id) => plainThroughput(ctx, broker, { id, inFlight: 64 })],
        ['mq-plain-64-db', (id) => plainThroughput(ctx, broker, { id, inFlight: 64, outboxWork: true })],
        ['mq-qb-8', (id) => queueboxPublish(ctx, qb, { id })],
        ['mq-qb-64', (id) => queueboxPublish(ctx, qb, { id, concurrency: 64 })],
        ['mq-src', (id) => queueboxSource(ctx, qb, { id })],
        ['mq-src-plain', (id) => plainSource(ctx, broker, { id })],
      ];
    },
    summarize,
    print,
  });

function summarize(ctx, scenarios) {
  const { ok, rate, ratio, met } = figuresOf(scenarios);
  const src = ok('mq-src')?.figures;
  const stored = (id) => ok(id)?.figures?.storedPerSecond ?? null;
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
      target: 'concurrency 64 ≥ 0.6 × plain client with 64 in flight (no database work)',
      value: ratio('mq-qb-64', 'mq-plain-64'),
      met: met(ratio('mq-qb-64', 'mq-plain-64'), (v) => v >= 0.6),
    },
    ...sourceTargets(src, met),
    {
      target: 'goal: 10,000 delivered/s (concurrency 64)',
      value: rate('mq-qb-64'),
      met: met(rate('mq-qb-64'), (v) => v >= 10000),
    },
  ];
  return {
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

function print(result) {
  const ok = result.scenarios.filter((s) => !s.error);
  printOutboxTable('rabbitmq', ok, LABELS);
  const src = ok.find((s) => s.id === 'mq-src');
  const plainSrc = ok.find((s) => s.id === 'mq-src-plain');
  if (plainSrc) {
    const f = plainSrc.figures;
    console.log(`\nmq-src-plain (${plainSrc.title}): ${fmtInt(f.storedPerSecond)} stored/s, ${f.lost} lost, ${f.storedTwice} twice, ${f.leftInQueue} left, CPU% ${cpuCell(LABELS.role)(plainSrc)}`);
  }
  if (src) printSourceTable('rabbitmq', src, LABELS);
  printBrokerTail(result, {
    issue: 13,
    system: 'amqplib',
    client: (s) => console.log(`${s.id}: ${s.settings.client}`),
  });
}
