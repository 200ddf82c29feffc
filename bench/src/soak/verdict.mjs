/**
 * The soak's verdict: the figures read at the end and the checks, printed together. How a
 * receiver counts deliveries, duplicates and order: order-ledger.mjs.
 *
 * The duplicate bound: right after the SIGKILL the soak reads the `processing` rows from the
 * table and finds which of them the killed replica held (killed-claims.mjs); spec G3 lets a crash
 * duplicate what was in flight. The broker cut adds the one other duplicate AMQP cannot avoid
 * (docs/rabbitmq.md): a publish whose confirm the cut swallowed is published again, and the broker
 * may have taken the first one. Those rows say so in `last_error` ("... was not confirmed"), read
 * from the table at the end. The duplicates at all receivers together must not exceed the two
 * counts added; nothing else (the SIGTERM, the database restart, the sink's refusals) may
 * duplicate.
 *
 * Asserted and printed: every outbox row `sent`; every webhook stored once, forwarded, and
 * delivered; no order violation at any receiver; duplicates within the bound; no row left
 * `processing`; every replica process's peak RSS (VmHWM) under 200 MB; every SIGTERM exit 0.
 * The exit code is 1 when any of these fails (run.mjs).
 */
import { loadAverage } from '../lib/machine.mjs';
import { round } from '../lib/util.mjs';
import { rabbitLedger } from './receivers.mjs';

const RSS_LIMIT_MB = 200;

/**
 * Reads the end state, prints the figures and the checks, and returns the checks
 * (`[what, ok]` pairs). `run` holds what the run collected on the way (see run.mjs).
 */
export async function judge(run) {
  const { options, sql, expected, ledgers, sinkCounts, collector, faults, replicas } = run;
  const { webhookStats, exits } = run;
  const outboxStates = Object.fromEntries(
    (await sql`SELECT state, count(*)::int AS n FROM outbox GROUP BY state`).map((r) => [r.state, r.n]),
  );
  const inboxStates = Object.fromEntries(
    (await sql`SELECT state, count(*)::int AS n FROM inbox GROUP BY state`).map((r) => [r.state, r.n]),
  );
  const rabbit = rabbitLedger(collector);
  const receivers = [ledgers.orders.summary(), ledgers.hooks.summary(), rabbit.ledger.summary()];
  const duplicates = receivers.reduce((sum, r) => sum + r.duplicates, 0);
  const [{ n: unconfirmed }] = await sql`SELECT count(*)::int AS n FROM outbox
    WHERE topic LIKE 'stock.%' AND last_error LIKE '%not confirmed%'`;
  faults.brokerCut.unconfirmedRows = unconfirmed;
  const bound = faults.kill.killed.length + unconfirmed;
  const rss = replicas.flatMap((r) => r.figures());
  const figures = {
    mode: options.short ? 'short' : 'full',
    rows: options.rows,
    keys: options.keys,
    webhooks: options.webhooks,
    aggregates: options.aggregates,
    loadSeconds: round(run.loadSeconds, 1),
    drainedSeconds: round(run.drainedSeconds, 1),
    catchUpSeconds: round(run.drainedSeconds - run.loadSeconds, 1),
    totalSeconds: round((Date.now() - run.t0) / 1000, 1),
    throughputPerSecond: round(expected.outbox / run.drainedSeconds, 0),
    outboxStates,
    inboxStates,
    webhooksPosted: webhookStats,
    insertRetries: run.inserted.retries,
    sink: sinkCounts,
    receivers,
    duplicates,
    duplicateBound: bound,
    faults,
    events: run.events,
    peakRss: rss,
    finalExits: exits,
    loadAverage: { before: run.loadBefore, after: loadAverage() },
  };

  const checks = [
    ['drained within the timeout', run.drained],
    [`every outbox row sent (${outboxStates.sent ?? 0} of ${expected.outbox})`, outboxStates.sent === expected.outbox && Object.keys(outboxStates).length === 1],
    [`every webhook stored once and relayed (inbox ${inboxStates.processed ?? 0} of ${options.webhooks} processed)`, inboxStates.processed === options.webhooks && Object.keys(inboxStates).length === 1],
    [`every webhook accepted by the source (${webhookStats.posted}, failures ${webhookStats.failures.length})`, webhookStats.posted === options.webhooks && webhookStats.failures.length === 0],
    [`every outbox row at its receiver (http ${ledgers.orders.seen.size}/${expected.http}, rabbitmq ${rabbit.ledger.seen.size}/${expected.rabbit})`, ledgers.orders.seen.size === expected.http && rabbit.ledger.seen.size === expected.rabbit],
    [`every webhook delivered (${ledgers.hooks.seen.size}/${options.webhooks})`, ledgers.hooks.seen.size === options.webhooks],
    [`per-key order kept (violations: ${receivers.map((r) => r.violations).join('/')})`, receivers.every((r) => r.violations === 0)],
    [`no unreadable delivery (${sinkCounts.unknown + rabbit.unknown})`, sinkCounts.unknown + rabbit.unknown === 0],
    [`duplicates ${duplicates} <= ${bound} (${faults.kill.killed.length} rows the killed replica held in processing + ${unconfirmed} broker publishes the cut left unconfirmed)`, duplicates <= bound],
    [`no row left processing (outbox ${outboxStates.processing ?? 0}, inbox ${inboxStates.processing ?? 0})`, !outboxStates.processing && !inboxStates.processing],
    [`peak RSS of every replica process < ${RSS_LIMIT_MB} MB (max ${Math.max(...rss.map((r) => r.peakRssMb))} MB)`, rss.every((r) => r.peakRssMb > 0 && r.peakRssMb < RSS_LIMIT_MB)],
    ['every SIGTERM ends with exit 0', faults.term.code === 0 && exits.every((e) => e.exit?.code === 0)],
  ];
  printFigures(figures, checks);
  return checks;
}

function printFigures(f, checks) {
  const lines = [
    '',
    `== Soak (${f.mode}) ==`,
    `load: ${f.rows} outbox rows over ${f.keys} keys + ${f.webhooks} webhooks over ${f.aggregates} aggregates, posted/inserted over ${f.loadSeconds} s`,
    `drained: ${f.drainedSeconds} s after the load started, ${f.catchUpSeconds} s after its end (${f.throughputPerSecond} outbox rows/s overall, paced by the load); whole run ${f.totalSeconds} s`,
    `outbox states: ${JSON.stringify(f.outboxStates)}; inbox states: ${JSON.stringify(f.inboxStates)}`,
    `webhooks: ${f.webhooksPosted.posted} accepted (${f.webhooksPosted.stored} stored, ${f.webhooksPosted.duplicate} answered duplicate on a resend), ${f.webhooksPosted.retried} requests retried on another replica`,
    `sink: ${f.sink.requests} requests, ${f.sink.refused} refused first attempts (503), ${f.sink.slow} slow answers`,
    ...f.receivers.map(
      (r) =>
        `receiver ${r.receiver}: ${r.unique} messages, ${r.deliveries} deliveries, ${r.duplicates} duplicates, ${r.keys} keys, ${r.violations} order violations${r.violations ? ` ${JSON.stringify(r.violationSamples)}` : ''}`,
    ),
    `duplicates: ${f.duplicates} (bound ${f.duplicateBound}: ${f.faults.kill.killed.length} rows the killed replica held of ${f.faults.kill.processingAtKill} outbox rows processing at the kill (${f.faults.kill.undecided.length} undecided), + ${f.faults.brokerCut.unconfirmedRows} publishes the broker cut left unconfirmed)`,
    `SIGTERM exit: ${JSON.stringify(f.faults.term)}; broker cut: ${JSON.stringify(f.faults.brokerCut)}; outbox insert retries: ${f.insertRetries}`,
    ...f.peakRss.map((r) => `replica ${r.replica} pid ${r.pid}: peak RSS ${r.peakRssMb} MB, ended by ${r.ended} ${JSON.stringify(r.exit)}`),
    `load average before ${f.loadAverage.before.one}/${f.loadAverage.before.five}, after ${f.loadAverage.after.one}/${f.loadAverage.after.five}`,
    'events:',
    ...f.events.map((e) => `  +${e.at} s ${e.what}`),
    'checks:',
    ...checks.map(([what, ok]) => `  ${ok ? 'ok  ' : 'FAIL'} ${what}`),
  ];
  console.log(lines.join('\n'));
}
