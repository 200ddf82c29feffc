/**
 * `pnpm bench nats`: the outbox to a JetStream stream by QueueBox at its defaults
 * (`outbox.concurrency` 8), beside a plain nats client with 8 and 64 PubAcks in flight in the
 * same run (and with 8 while an outbox's claims and completions run beside it: the ceiling of any
 * outbox); then a loaded stream stored into the inbox by a NATS source at its defaults
 * (`batchSize` 100). Figures, conditions, the issue's targets (issue 20) and the JSON in
 * bench/results/.
 */
import { runBrokerBench } from '../lib/broker-bench.mjs';
import {
  figuresOf,
  printBrokerTail,
  printOutboxTable,
  printSourceTable,
  sourceTargets,
} from '../lib/broker-report.mjs';
import { outboxWorkLine } from '../lib/outbox-ceiling.mjs';
import { queueboxPublish, queueboxSource } from '../lib/queuebox-broker.mjs';
import { natsAdapter } from './adapter.mjs';
import { plainThroughput } from './plain.mjs';
import { NATS_URL, openServer, serverPid } from './server.mjs';

const LABELS = {
  role: 'nats',
  cpu: 'server',
  target: 'stream',
  source: 'stream',
  count: ['inStream', 'in stream'],
  left: ['leftInStream', 'left in stream'],
};

export const runNats = (options) =>
  runBrokerBench(options, {
    name: 'nats',
    open: openServer,
    pid: serverPid,
    conditions: (server, pid) => ({ server: server.version, url: NATS_URL, pid }),
    where: (server, pid) => `server: ${server.version} at ${NATS_URL}${pid === null ? '' : ` (pid ${pid})`}`,
    scenarios: (ctx, server) => {
      const qb = natsAdapter(server);
      return [
        ['nats-plain-8', (id) => plainThroughput(ctx, server, { id, inFlight: 8 })],
        ['nats-plain-8-db', (id) => plainThroughput(ctx, server, { id, inFlight: 8, outboxWork: true })],
        ['nats-plain-64', (id) => plainThroughput(ctx, server, { id, inFlight: 64 })],
        ['nats-plain-64-db', (id) => plainThroughput(ctx, server, { id, inFlight: 64, outboxWork: true })],
        ['nats-lean-8', (id) => plainThroughput(ctx, server, { id, inFlight: 8, lean: true })],
        ['nats-lean-8-db', (id) => plainThroughput(ctx, server, { id, inFlight: 8, outboxWork: true, lean: true })],
        ['nats-qb', (id) => queueboxPublish(ctx, qb, { id })],
        ['nats-qb-64', (id) => queueboxPublish(ctx, qb, { id, concurrency: 64 })],
        ['nats-src', (id) => queueboxSource(ctx, qb, { id })],
      ];
    },
    summarize,
    print,
  });

function summarize(ctx, scenarios) {
  const { ok, rate, ratio, met } = figuresOf(scenarios);
  const targets = [
    {
      target: 'defaults ≥ 7,000 delivered/s',
      value: rate('nats-qb'),
      met: met(rate('nats-qb'), (v) => v >= 7000),
    },
    {
      target: 'outbox.concurrency 64 ≥ 0.6 × plain client with 64 in flight (no database work)',
      value: ratio('nats-qb-64', 'nats-plain-64'),
      met: met(ratio('nats-qb-64', 'nats-plain-64'), (v) => v >= 0.6),
    },
    ...sourceTargets(ok('nats-src')?.figures, met),
    {
      target: 'goal: 15,000 delivered/s (defaults)',
      value: rate('nats-qb'),
      met: met(rate('nats-qb'), (v) => v >= 15000),
    },
  ];
  return {
    ratios: {
      'QueueBox defaults / plain 8 in flight': ratio('nats-qb', 'nats-plain-8'),
      "plain 8 with an outbox's database work beside it / plain 8 (the ceiling of any outbox)": ratio('nats-plain-8-db', 'nats-plain-8'),
      'QueueBox defaults / the ceiling': ratio('nats-qb', 'nats-plain-8-db'),
      'QueueBox defaults / plain 64 in flight': ratio('nats-qb', 'nats-plain-64'),
      'QueueBox outbox.concurrency 64 / plain 64 in flight': ratio('nats-qb-64', 'nats-plain-64'),
      "plain 64 with an outbox's database work beside it / plain 64 (the ceiling of any outbox at 64)": ratio('nats-plain-64-db', 'nats-plain-64'),
      'QueueBox outbox.concurrency 64 / that ceiling': ratio('nats-qb-64', 'nats-plain-64-db'),
      "lean 8 with an outbox's database work beside it / lean 8 (the ceiling with the leanest client)": ratio('nats-lean-8-db', 'nats-lean-8'),
      'QueueBox defaults / the ceiling with the leanest client': ratio('nats-qb', 'nats-lean-8-db'),
    },
    targets,
  };
}

function print(result) {
  const ok = result.scenarios.filter((s) => !s.error);
  printOutboxTable('nats', ok, LABELS);
  const src = ok.find((s) => s.id === 'nats-src');
  if (src) printSourceTable('nats', src, LABELS);
  printBrokerTail(result, {
    issue: 20,
    system: 'nats.js',
    client: (s) => {
      console.log(`${s.id}: ${s.settings.client}${s.settings.outboxWork ? `; beside it ${s.settings.outboxWork}` : ''}`);
      const work = outboxWorkLine(s.figures);
      if (work) console.log(`  ${work}`);
    },
  });
}
