/**
 * `pnpm test:soak [--short]`: the soak and fault test (issue "Resilience proved", item 1).
 *
 * Three QueueBox replicas (the built app) share one private PostgreSQL (its own initdb cluster on
 * a free port, run as the `postgres` user by startPrivatePostgres, so the machine's shared server
 * is never touched). Outbox rows (full: 50,000 over 500 keys; --short: 5,000) go to an HTTP sink
 * (every 5th key: to a RabbitMQ exchange, reached through a fault proxy), and webhooks (full:
 * 5,000 over 200 aggregates; --short: 1,000) are posted to the replicas' HTTP source, relayed
 * and delivered to the sink. The sink refuses the first attempt of 5 % of the messages and
 * answers 0.5 % of the requests after 1-3 s. While the load runs: one replica is killed with
 * SIGKILL and started again, another gets SIGTERM and is started again, the PostgreSQL server is
 * restarted (fast shutdown, same data), and the broker connections are cut (RST) once.
 *
 * Deliveries, duplicates and order (order-ledger.mjs). Every payload carries its key (outbox
 * `key`, webhook aggregate id) and `seq`, that key's 1, 2, 3, ... in the order the application
 * inserted (outbox) or the client posted, each after the previous was stored (webhooks). A
 * message's identity is its outbox row id (HTTP X-Message-Id, AMQP message_id) or, for a
 * webhook, its own id in the payload. At each receiver the first accepted delivery (HTTP 2xx,
 * AMQP ack) of an identity is its delivery, and any later accepted delivery of it is a
 * duplicate. Per key, the deliveries must run seq 1, 2, 3, ... without a step back or a gap; a
 * duplicate repeats an earlier seq of its key and is not an order violation (one ahead of its
 * key would be). A refused attempt (503) is no delivery.
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
 * The exit code is 1 when any of these fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import postgres from 'postgres';
import {
  createRabbitKit,
  freePort,
  scratchDataDir,
  startFaultProxy,
  startPrivatePostgres,
  systemPostgresBinaries,
} from '@queuebox/testing';
import { loadAverage } from '../lib/machine.mjs';
import { pickMetrics } from '../lib/queuebox.mjs';
import { log, round, sleep, waitFor } from '../lib/util.mjs';
import { attributeKilledClaims, readProcessing } from './killed-claims.mjs';
import { insertOutbox, postWebhooks, rabbitKey } from './load.mjs';
import { rabbitLedger, startSoakSink } from './receivers.mjs';
import { Replica, migrate, writeReplicaConfig } from './replicas.mjs';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const RSS_LIMIT_MB = 200;
/**
 * Above the PostgreSQL restart (a few seconds down, then the pools reconnect): a lease shorter
 * than an outage lets every claim of the moment run out, and each published row whose `sent`
 * write waited for the database is delivered again. Production's default is 300 s.
 */
const CLAIM_TIMEOUT_MS = 30_000;

function parseArgs(argv) {
  const short = argv.includes('--short');
  const value = (name, fallback) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  return {
    short,
    rows: value('rows', short ? 5000 : 50_000),
    keys: value('keys', 500),
    webhooks: value('webhooks', short ? 1000 : 5000),
    aggregates: value('aggregates', 200),
    seconds: value('seconds', short ? 60 : 150),
    timeout: value('timeout', short ? 150 : 600),
    keep: argv.includes('--keep'),
  };
}

function replicaConfig({ port, pg, sink, broker, exchange }) {
  return {
    server: { httpPort: port },
    database: {
      type: 'postgresql',
      url: `jdbc:postgresql://127.0.0.1:${pg.port}/${pg.database}`,
      username: pg.username,
      password: pg.password,
      connectionTimeoutMs: 5000,
    },
    outbox: {
      pollIntervalMs: 100,
      claimTimeoutMs: CLAIM_TIMEOUT_MS,
      retryBaseDelayMs: 200,
      maxAttempts: 10,
    },
    inbox: { relay: { claimTimeoutMs: CLAIM_TIMEOUT_MS } },
    destinations: {
      orders: { type: 'http', baseUrl: sink.url, path: '/orders', timeoutMs: 10_000 },
      hooks: { type: 'http', baseUrl: sink.url, path: '/hooks', timeoutMs: 10_000 },
      broker: {
        type: 'rabbitmq',
        url: `amqp://guest:guest@127.0.0.1:${broker.port}`,
        exchange,
        exchangeType: 'topic',
      },
    },
    routes: [
      { topicPattern: 'order.*', destination: 'orders' },
      { topicPattern: 'stock.*', destination: 'broker' },
      { topicPattern: 'hook.*', destination: 'hooks' },
    ],
    sources: {
      webhooks: {
        path: '/webhooks',
        idempotencyKeyPath: '$.id',
        aggregateIdPath: '$.aggregate',
        eventTypePath: '$.type',
      },
    },
  };
}

async function count(sql, text) {
  const [row] = await sql.unsafe(text);
  return row.n;
}

/**
 * Waits (up to 5 s) until at least `min` rows match `where` among the `processing` ones, so a
 * fault strikes while messages are in flight rather than between two batches of a light load.
 */
async function whenInFlight(sql, where, min) {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const n = await count(
      sql,
      `SELECT count(*)::int AS n FROM outbox WHERE state = 'processing' AND ${where}`,
    ).catch(() => 0);
    if (n >= min) return n;
    await sleep(10);
  }
  return 0;
}

/**
 * Waits (up to 5 s) until the replica reports a publish in progress (its
 * `queuebox_outbox_queue_depth`), so the SIGKILL catches it holding messages.
 */
async function whenPublishing(replica) {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    try {
      const text = await (await fetch(`${replica.base}/metrics`)).text();
      const depth = Object.values(pickMetrics(text, ['queuebox_outbox_queue_depth'])).reduce(
        (sum, n) => sum + n,
        0,
      );
      if (depth > 0) return depth;
    } catch {
      // Not answering this moment: ask again.
    }
    await sleep(10);
  }
  return 0;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const loadBefore = loadAverage();
  const cleanups = [];
  const events = [];
  const event = (what) => {
    events.push({ at: round((Date.now() - t0) / 1000, 1), what });
    log(what);
  };
  const workDir = mkdtempSync(join(tmpdir(), 'queuebox-soak-'));
  log(
    `soak${options.short ? ' (short)' : ''}: ${options.rows} outbox rows over ${options.keys} keys, ` +
      `${options.webhooks} webhooks over ${options.aggregates} aggregates, load spread over ${options.seconds} s; logs in ${workDir}`,
  );
  try {
    // The private PostgreSQL (fsync off: the soak tests QueueBox, not the disk of a shared machine).
    const binaries = await systemPostgresBinaries(PG_BIN);
    const dataDir = await scratchDataDir('soak');
    cleanups.push(() => rmSync(dirname(dataDir), { recursive: true, force: true }));
    const pgOptions = {
      binaries,
      dataDir,
      port: await freePort(),
      database: 'soak',
      settings: { fsync: 'off', max_connections: '200' },
    };
    let pg = await startPrivatePostgres(pgOptions);
    cleanups.push(() => pg.stop());
    event(`private PostgreSQL on port ${pg.port} (pid ${pg.pid})`);
    const sql = postgres(pg.url, { max: 4, onnotice: () => undefined });
    cleanups.push(() => sql.end({ timeout: 2 }));

    const kit = await createRabbitKit('amqp://guest:guest@127.0.0.1:5672', 'soak');
    cleanups.push(() => kit.cleanup());
    const exchange = await kit.exchange(kit.name('events'), 'topic');
    const queue = await kit.queue(kit.name('stock'), { exchange, patterns: ['#'] });
    const collector = await kit.collect(queue);
    const broker = await startFaultProxy({ target: { host: '127.0.0.1', port: 5672 } });
    cleanups.push(() => broker.close());
    const { sink, ledgers, counts: sinkCounts } = await startSoakSink();
    cleanups.push(() => sink.close());

    const replicas = [];
    for (const name of ['a', 'b', 'c']) {
      const port = await freePort();
      const configFile = writeReplicaConfig(
        workDir,
        name,
        replicaConfig({ port, pg, sink, broker, exchange }),
      );
      replicas.push(new Replica({ name, configFile, httpPort: port, logDir: workDir }));
    }
    cleanups.push(async () => {
      for (const r of replicas) await r.signal('SIGKILL');
    });
    migrate(replicas[0].configFile);
    await Promise.all(replicas.map((r) => r.start()));
    event('three replicas ready');

    // The load and, beside it, the faults at fixed shares of the load's time.
    const loadStart = Date.now();
    let stopLoad = false;
    let insertErrors = 0;
    const inserting = insertOutbox(sql, {
      rows: options.rows,
      keys: options.keys,
      seconds: options.seconds,
      stopped: () => stopLoad,
      onError: () => (insertErrors += 1),
    });
    const posting = postWebhooks({
      bases: replicas.map((r) => r.base),
      path: '/inbox/webhooks',
      total: options.webhooks,
      aggregates: options.aggregates,
      seconds: options.seconds,
    });
    const at = async (share) => {
      const wait = loadStart + share * options.seconds * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
    };
    const faults = {};

    await at(0.15);
    const [a, b] = replicas;
    await whenPublishing(a);
    await a.signal('SIGKILL');
    const atKill = await readProcessing(sql);
    event(
      `SIGKILL replica a: ${atKill.outbox.length} outbox rows and ${atKill.inboxProcessing} inbox rows processing`,
    );
    const attributing = attributeKilledClaims(sql, atKill.outbox, {
      timeoutMs: 2 * CLAIM_TIMEOUT_MS + 10_000,
    });
    await sleep(2000);
    await a.start();
    event('replica a started again');
    faults.kill = { processingAtKill: atKill.outbox.length, inboxProcessingAtKill: atKill.inboxProcessing };
    // Decided once the leases read at the kill ran out (up to claimTimeoutMs); the faults go on.
    const attributed = attributing.then((result) => {
      Object.assign(faults.kill, result);
      event(`the killed replica held ${result.killed.length} of the rows processing at the kill`);
    });

    await at(0.35);
    const termExit = await b.signal('SIGTERM');
    event(`SIGTERM replica b: exit ${JSON.stringify(termExit)}`);
    await b.start();
    event('replica b started again');
    faults.term = termExit;

    await at(0.55);
    await whenInFlight(sql, 'true', 10);
    await pg.stop();
    event('private PostgreSQL stopped (fast shutdown)');
    await sleep(3000);
    pg = await startPrivatePostgres(pgOptions);
    event(`private PostgreSQL started again (pid ${pg.pid})`);

    await at(0.75);
    const inFlight = await whenInFlight(sql, `topic LIKE 'stock.%'`, 1);
    const cutBefore = broker.stats().cut;
    broker.cut();
    faults.brokerCut = { connections: broker.stats().cut - cutBefore, rabbitRowsInFlight: inFlight };
    event(`broker connections cut (${faults.brokerCut.connections}; ${inFlight} broker rows in flight)`);

    await attributed;
    const inserted = await inserting;
    const webhookStats = await posting;
    const loadSeconds = (Date.now() - loadStart) / 1000;
    event(
      `load done: ${inserted.inserted} rows inserted (${inserted.retries} batch retries), ` +
        `${webhookStats.posted} webhooks posted (${webhookStats.retried} retried requests)`,
    );

    // Drained: every expected row sent, the inbox forwarded, the receivers complete.
    const expectedOutbox = options.rows + options.webhooks;
    const rabbitRows = Array.from({ length: options.rows }, (_, i) => i % options.keys).filter(
      rabbitKey,
    ).length;
    const expectedHttp = options.rows - rabbitRows;
    let drained = true;
    await waitFor(
      async () => {
        try {
          const sent = await count(sql, `SELECT count(*)::int AS n FROM outbox WHERE state = 'sent'`);
          return (
            sent >= expectedOutbox &&
            ledgers.orders.seen.size >= expectedHttp &&
            ledgers.hooks.seen.size >= options.webhooks &&
            new Set(collector.messages.map((m) => m.properties.messageId)).size >= rabbitRows
          );
        } catch {
          return false;
        }
      },
      { timeoutMs: options.timeout * 1000, everyMs: 500, what: 'every delivery' },
    ).catch((error) => {
      drained = false;
      event(error.message);
    });
    const drainedSeconds = (Date.now() - loadStart) / 1000;
    event(`drained ${round(drainedSeconds - loadSeconds, 1)} s after the load ended`);
    // A moment for late duplicates (a reclaim, a resent publish) to show up before counting.
    await sleep(3000);

    for (const r of replicas) if (r.current) r.sample(r.current);
    const exits = [];
    for (const r of replicas) exits.push({ replica: r.name, exit: await r.signal('SIGTERM') });

    // Figures.
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
      loadSeconds: round(loadSeconds, 1),
      drainedSeconds: round(drainedSeconds, 1),
      catchUpSeconds: round(drainedSeconds - loadSeconds, 1),
      totalSeconds: round((Date.now() - t0) / 1000, 1),
      throughputPerSecond: round(expectedOutbox / drainedSeconds, 0),
      outboxStates,
      inboxStates,
      webhooksPosted: webhookStats,
      insertRetries: inserted.retries,
      sink: sinkCounts,
      receivers,
      duplicates,
      duplicateBound: bound,
      faults,
      events,
      peakRss: rss,
      finalExits: exits,
      loadAverage: { before: loadBefore, after: loadAverage() },
    };

    const checks = [
      ['drained within the timeout', drained],
      [`every outbox row sent (${outboxStates.sent ?? 0} of ${expectedOutbox})`, outboxStates.sent === expectedOutbox && Object.keys(outboxStates).length === 1],
      [`every webhook stored once and relayed (inbox ${inboxStates.processed ?? 0} of ${options.webhooks} processed)`, inboxStates.processed === options.webhooks && Object.keys(inboxStates).length === 1],
      [`every webhook accepted by the source (${webhookStats.posted}, failures ${webhookStats.failures.length})`, webhookStats.posted === options.webhooks && webhookStats.failures.length === 0],
      [`every outbox row at its receiver (http ${ledgers.orders.seen.size}/${expectedHttp}, rabbitmq ${rabbit.ledger.seen.size}/${rabbitRows})`, ledgers.orders.seen.size === expectedHttp && rabbit.ledger.seen.size === rabbitRows],
      [`every webhook delivered (${ledgers.hooks.seen.size}/${options.webhooks})`, ledgers.hooks.seen.size === options.webhooks],
      [`per-key order kept (violations: ${receivers.map((r) => r.violations).join('/')})`, receivers.every((r) => r.violations === 0)],
      [`no unreadable delivery (${sinkCounts.unknown + rabbit.unknown})`, sinkCounts.unknown + rabbit.unknown === 0],
      [`duplicates ${duplicates} <= ${bound} (${faults.kill.killed.length} rows the killed replica held in processing + ${unconfirmed} broker publishes the cut left unconfirmed)`, duplicates <= bound],
      [`no row left processing (outbox ${outboxStates.processing ?? 0}, inbox ${inboxStates.processing ?? 0})`, !outboxStates.processing && !inboxStates.processing],
      [`peak RSS of every replica process < ${RSS_LIMIT_MB} MB (max ${Math.max(...rss.map((r) => r.peakRssMb))} MB)`, rss.every((r) => r.peakRssMb > 0 && r.peakRssMb < RSS_LIMIT_MB)],
      ['every SIGTERM ends with exit 0', faults.term.code === 0 && exits.every((e) => e.exit?.code === 0)],
    ];
    printFigures(figures, checks);
    const failed = checks.filter(([, ok]) => !ok);
    if (failed.length > 0) {
      console.log(`SOAK FAILED: ${failed.length} of ${checks.length} checks; logs in ${workDir}`);
      options.keep = true;
      process.exitCode = 1;
    } else {
      console.log(`SOAK PASSED: ${checks.length} checks`);
    }
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        log(`cleanup: ${error.message}`);
      }
    }
    if (!options.keep) rmSync(workDir, { recursive: true, force: true });
  }
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

await main();
