/**
 * QueueBox against Kafka: (1) the outbox delivering a loaded backlog to a topic of 6 partitions at
 * its defaults and with `outbox.concurrency: 64`; (2) a Kafka source storing a loaded topic into
 * the inbox at its defaults (maxPollRecords 100), with the relay off so only ingestion is measured.
 * QueueBox runs as its own process (the built dist); the bench polls the topic size or the
 * inbox count every `POLL_MS` and reports first → last.
 */
import { METRIC_FAMILIES, runQueueBox as runShared, watch } from '../lib/broker-run.mjs';
import { cpuProfiling } from '../lib/cpuprofile.mjs';
import { loadAverage } from '../lib/machine.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { pickMetrics, startQueueBox } from '../lib/queuebox.mjs';
import { log, now, round, sleep } from '../lib/util.mjs';
import { loadOutbox } from '../outbox/load.mjs';
import { KAFKA_BROKERS, produceBatches } from './broker.mjs';

// The printout shows the configuration as written.
const runQueueBox = (ctx, id, db, config, body) =>
  runShared(ctx, id, db, config, body, { yaml: (c) => c });

export async function queueboxPublish(ctx, broker, { id, concurrency }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await broker.scratch(id);
  // --cpu-prof: QueueBox runs under node --cpu-prof and the run prints where its time went.
  const profile = cpuProfiling(ctx, id, log);
  try {
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      log(`${id}: QueueBox outbox → Kafka, ${rows} rows, outbox.concurrency ${concurrency ?? '8 (default)'} — database ${db}`);
      const config = {
        destinations: { k: { type: 'kafka', bootstrapServers: KAFKA_BROKERS, topic: scratch.topic } },
        routes: [{ topicPattern: '**', destination: 'k' }],
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
            title: `outbox → topic, outbox.concurrency ${concurrency ?? 8}`,
            rows,
            payloadBytes: options['body-bytes'],
            settings: {
              ...settings,
              note: `QueueBox defaults for everything else (outbox.batchSize 100, pollIntervalMs 100, idempotent producer, acks all, timeoutMs 30000, null keys); the topic has 6 partitions`,
            },
            loading,
            figures: {
              messagesPerSecond: seconds ? round(rows / seconds, 0) : null,
              firstToLastSeconds: seconds === null ? null : round(seconds, 2),
              processStartToAllSeconds: seen.done === null ? null : round((seen.done - t0) / 1000, 2),
              inTopic: seen.value,
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
  const scratch = await broker.scratch(id);
  const profile = cpuProfiling(ctx, id, log);
  try {
    log(`${id}: ${rows} records into ${scratch.topic}, then a QueueBox Kafka source`);
    const published = await produceBatches(broker.kafka, {
      topic: scratch.topic,
      count: rows,
      batch: 500,
      body: (i) => ctx.payloads.text(i, null),
      // The source's key: the record key (the bodies carry no `id`, the default key path).
      key: (i) => `m-${i}`,
    });
    log(`  published in ${round((published.t1 - published.t0) / 1000, 2)} s`);
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      const config = {
        inbox: { relay: { enabled: false } },
        sources: {
          k: { type: 'kafka', bootstrapServers: KAFKA_BROKERS, topics: [scratch.topic], groupId: `${scratch.topic}.group` },
        },
      };
      return runQueueBox(ctx, id, db, config, async ({ httpPort, configFile, settings }) => {
        const sql = connect(db, { max: 1 });
        let queuebox = null;
        try {
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
          const count = async () => (await sql`select count(*)::int as n from inbox`)[0].n;
          const seen = await watch(count, rows, options.timeout * 1000, id);
          await sleep(1000);
          const [stored] = await sql`select count(*)::int as n, count(distinct idempotency_key)::int as keys, count(*) filter (where state = 'dead')::int as dead from inbox`;
          const metrics = pickMetrics((await queuebox.metrics()) ?? '', METRIC_FAMILIES);
          const seconds = seen.done === null ? null : (seen.done - seen.first) / 1000;
          return {
            id,
            system: 'QueueBox',
            title: 'Kafka source → inbox, maxPollRecords 100 (default)',
            rows,
            payloadBytes: options['body-bytes'],
            settings: {
              ...settings,
              note: 'QueueBox defaults for everything else (maxPollRecords 100, autoOffsetReset earliest, key from the record key); the relay is off so only ingestion is measured; the topic was filled first by a plain idempotent producer (batches of 500)',
            },
            figures: {
              storedPerSecond: seconds ? round(rows / seconds, 0) : null,
              firstToLastSeconds: seconds === null ? null : round(seconds, 2),
              processStartToAllSeconds: seen.done === null ? null : round((seen.done - t0) / 1000, 2),
              stored: stored.n,
              lost: Math.max(0, rows - stored.keys),
              storedTwice: stored.n - stored.keys,
              dead: stored.dead,
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
          profile.report();
        }
      });
    });
  } finally {
    await scratch.drop();
  }
}
