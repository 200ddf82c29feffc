/**
 * QueueBox against RabbitMQ: (1) the outbox delivering a loaded backlog to an exchange, at the
 * defaults and with `outbox.concurrency: 64`; (2) a RabbitMQ source storing a loaded queue into
 * the inbox at its defaults (prefetchCount 10), with the relay off so only ingestion is measured.
 * QueueBox runs as its own process (the built dist); the bench polls the queue depth or the
 * inbox count every `POLL_MS` and reports first → last.
 */
import { cpuProfiling } from '../lib/cpuprofile.mjs';
import { METRIC_FAMILIES, runQueueBox as runShared, watch } from '../lib/broker-run.mjs';
import { loadAverage } from '../lib/machine.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { pickMetrics, startQueueBox } from '../lib/queuebox.mjs';
import { log, now, round, sleep } from '../lib/util.mjs';
import { loadOutbox } from '../outbox/load.mjs';
import { RABBITMQ_URL, maskedUrl, publishConfirmed } from './broker.mjs';

// The printout and the JSON never carry the broker password.
const runQueueBox = (ctx, id, db, config, body) =>
  runShared(ctx, id, db, config, body, { yaml: (c) => JSON.parse(JSON.stringify(c).replaceAll(RABBITMQ_URL, maskedUrl())) });

export async function queueboxPublish(ctx, broker, { id, concurrency }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await broker.scratch(id);
  // --cpu-prof: QueueBox runs under node --cpu-prof and the run prints where its time went.
  const profile = cpuProfiling(ctx, id, log);
  try {
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      log(`${id}: QueueBox outbox → RabbitMQ, ${rows} rows, outbox.concurrency ${concurrency ?? '8 (default)'} — database ${db}`);
      const config = {
        destinations: { mq: { type: 'rabbitmq', url: RABBITMQ_URL, exchange: scratch.exchange } },
        routes: [{ topicPattern: '**', destination: 'mq' }],
      };
      if (concurrency !== undefined) config.outbox = { concurrency };
      return runQueueBox(ctx, id, db, config, async ({ httpPort, configFile, settings }) => {
        const sql = connect(db, { max: 1 });
        let queuebox = null;
        try {
          const loading = await loadOutbox(sql, {
            rows,
            keys: 0,
            batch: options['load-batch'],
            payloads: ctx.payloads,
          });
          log(`  loaded ${rows} rows in ${loading.seconds} s`);
          const loadBefore = loadAverage();
          const t0 = now();
          queuebox = await startQueueBox({
            label: `${ctx.stamp}-${id}-queuebox`,
            database: db,
            configFile,
            httpPort,
            nodeArgs: profile.nodeArgs,
          });
          ctx.cpu.setRole(queuebox.pid, 'queuebox');
          const seen = await watch(scratch.depth, rows, options.timeout * 1000, id);
          const metrics = pickMetrics((await queuebox.metrics()) ?? '', METRIC_FAMILIES);
          const states = await sql`select state, count(*)::int as n from outbox group by state order by state`;
          const seconds = seen.done === null ? null : (seen.done - seen.first) / 1000;
          return {
            id,
            system: 'QueueBox',
            title: `outbox → exchange, outbox.concurrency ${concurrency ?? 8}`,
            rows,
            payloadBytes: options['body-bytes'],
            settings: {
              ...settings,
              note: `QueueBox defaults for everything else (outbox.batchSize 100, pollIntervalMs 100, deliveryMode persistent, exchangeType topic, routing key {{ topic }}); the exchange is durable with one durable queue bound by #`,
            },
            loading,
            figures: {
              messagesPerSecond: seconds ? round(rows / seconds, 0) : null,
              firstToLastSeconds: seconds === null ? null : round(seconds, 2),
              processStartToAllSeconds: seen.done === null ? null : round((seen.done - t0) / 1000, 2),
              inQueue: seen.value,
              lost: Math.max(0, rows - seen.value),
              timedOut: seen.timedOut,
            },
            finalStates: Object.fromEntries(states.map((r) => [r.state, r.n])),
            queueboxMetrics: metrics,
            loadAverage: { before: loadBefore, after: loadAverage() },
            cpu: seen.done === null ? null : ctx.cpu.window(seen.first, seen.done),
            log: queuebox.logFile,
            queueboxDist: queuebox.dist,
          };
        } finally {
          await queuebox?.stop();
          await sql.end();
          profile.report();
        }
      });
    });
  } finally {
    await scratch.drop();
  }
}

export async function queueboxSource(ctx, broker, { id }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await broker.scratch(id, { exchange: false });
  try {
    log(`${id}: ${rows} messages into ${scratch.queue}, then a QueueBox RabbitMQ source`);
    const published = await publishConfirmed(broker.connection, {
      queue: scratch.queue,
      count: rows,
      inFlight: 64,
      body: (i) => ctx.payloads.text(i, null),
      // The source's key: AMQP message_id (the bodies carry no `id`, the default key path).
      messageId: (i) => `m-${i}`,
    });
    log(`  published in ${round((published.t1 - published.t0) / 1000, 2)} s`);
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      const config = {
        inbox: { relay: { enabled: false } },
        sources: { mq: { type: 'rabbitmq', queueName: scratch.queue, connectionUrl: RABBITMQ_URL } },
      };
      return runQueueBox(ctx, id, db, config, async ({ httpPort, configFile, settings }) => {
        const sql = connect(db, { max: 1 });
        let queuebox = null;
        try {
          const loadBefore = loadAverage();
          const t0 = now();
          queuebox = await startQueueBox({ label: `${ctx.stamp}-${id}-queuebox`, database: db, configFile, httpPort });
          ctx.cpu.setRole(queuebox.pid, 'queuebox');
          const count = async () => (await sql`select count(*)::int as n from inbox`)[0].n;
          const seen = await watch(count, rows, options.timeout * 1000, id);
          await sleep(1000);
          const [stored] = await sql`select count(*)::int as n, count(distinct idempotency_key)::int as keys, count(*) filter (where state = 'dead')::int as dead from inbox`;
          const left = await scratch.depth();
          const metrics = pickMetrics((await queuebox.metrics()) ?? '', METRIC_FAMILIES);
          const seconds = seen.done === null ? null : (seen.done - seen.first) / 1000;
          return {
            id,
            system: 'QueueBox',
            title: 'RabbitMQ source → inbox, prefetchCount 10 (default)',
            rows,
            payloadBytes: options['body-bytes'],
            settings: {
              ...settings,
              note: 'QueueBox defaults for everything else (prefetchCount 10, key from AMQP message_id); the relay is off so only ingestion is measured; the queue was filled first by a plain client (64 in flight, persistent)',
            },
            figures: {
              storedPerSecond: seconds ? round(rows / seconds, 0) : null,
              firstToLastSeconds: seconds === null ? null : round(seconds, 2),
              processStartToAllSeconds: seen.done === null ? null : round((seen.done - t0) / 1000, 2),
              stored: stored.n,
              lost: Math.max(0, rows - stored.keys),
              storedTwice: stored.n - stored.keys,
              dead: stored.dead,
              leftInQueue: left,
              timedOut: seen.timedOut,
            },
            queueboxMetrics: metrics,
            loadAverage: { before: loadBefore, after: loadAverage() },
            cpu: seen.done === null ? null : ctx.cpu.window(seen.first, seen.done),
            log: queuebox.logFile,
            queueboxDist: queuebox.dist,
          };
        } finally {
          await queuebox?.stop();
          await sql.end();
        }
      });
    });
  } finally {
    await scratch.drop();
  }
}
