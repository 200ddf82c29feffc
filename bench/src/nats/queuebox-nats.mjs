/**
 * QueueBox against NATS JetStream: (1) the outbox delivering a loaded backlog to a stream, at its
 * defaults; (2) a NATS source storing a loaded stream into
 * the inbox at its defaults (batchSize 100), with the relay off so only ingestion is measured.
 * QueueBox runs as its own process (the built dist); the bench polls the stream count or the
 * inbox count every `POLL_MS` and reports first → last.
 */
import { METRIC_FAMILIES, runQueueBox, watch } from '../lib/broker-run.mjs';
import { cpuProfiling } from '../lib/cpuprofile.mjs';
import { loadAverage } from '../lib/machine.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { pickMetrics, startQueueBox } from '../lib/queuebox.mjs';
import { log, now, round, sleep } from '../lib/util.mjs';
import { loadOutbox } from '../outbox/load.mjs';
import { NATS_URL, publishAcked } from './server.mjs';

export async function queueboxPublish(ctx, server, { id, concurrency }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await server.scratch(id);
  // --cpu-prof: QueueBox runs under node --cpu-prof and the run prints where its time went.
  const profile = cpuProfiling(ctx, id, log);
  try {
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      log(`${id}: QueueBox outbox → NATS JetStream, ${rows} rows, outbox.concurrency ${concurrency ?? '8 (default)'} — database ${db}`);
      const config = {
        destinations: { ns: { type: 'nats', servers: NATS_URL, subject: scratch.subject } },
        routes: [{ topicPattern: '**', destination: 'ns' }],
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
          const seen = await watch(scratch.count, rows, options.timeout * 1000, id);
          const metrics = pickMetrics((await queuebox.metrics()) ?? '', METRIC_FAMILIES);
          const states = await sql`select state, count(*)::int as n from outbox group by state order by state`;
          const seconds = seen.done === null ? null : (seen.done - seen.first) / 1000;
          return {
            id,
            system: 'QueueBox',
            title: `outbox → stream, outbox.concurrency ${concurrency ?? 8}`,
            rows,
            payloadBytes: options['body-bytes'],
            settings: {
              ...settings,
              note: `QueueBox defaults for everything else (outbox.batchSize 100, pollIntervalMs 100, jetStream true, timeoutMs 30000); one file-storage stream takes the subject`,
            },
            loading,
            figures: {
              messagesPerSecond: seconds ? round(rows / seconds, 0) : null,
              firstToLastSeconds: seconds === null ? null : round(seconds, 2),
              processStartToAllSeconds: seen.done === null ? null : round((seen.done - t0) / 1000, 2),
              inStream: seen.value,
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

export async function queueboxSource(ctx, server, { id }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await server.scratch(id);
  const profile = cpuProfiling(ctx, id, log);
  try {
    log(`${id}: ${rows} messages into stream ${scratch.stream}, then a QueueBox NATS source`);
    const published = await publishAcked(server.connection, {
      subject: scratch.subject,
      count: rows,
      inFlight: 64,
      body: (i) => ctx.payloads.text(i, null),
      // The source's key: Nats-Msg-Id (the bodies carry no `id`, the default key path).
      msgId: (i) => `m-${i}`,
    });
    log(`  published in ${round((published.t1 - published.t0) / 1000, 2)} s`);
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      const config = {
        inbox: { relay: { enabled: false } },
        sources: { ns: { type: 'nats', servers: NATS_URL, stream: scratch.stream, durable: 'queuebox-bench' } },
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
          const info = await server.jsm.consumers.info(scratch.stream, 'queuebox-bench');
          const left = info.num_pending + info.num_ack_pending;
          const metrics = pickMetrics((await queuebox.metrics()) ?? '', METRIC_FAMILIES);
          const seconds = seen.done === null ? null : (seen.done - seen.first) / 1000;
          return {
            id,
            system: 'QueueBox',
            title: 'NATS source → inbox, batchSize 100 (default)',
            rows,
            payloadBytes: options['body-bytes'],
            settings: {
              ...settings,
              note: 'QueueBox defaults for everything else (batchSize 100, ackWaitMs 30000, key from Nats-Msg-Id; the durable consumer is created by QueueBox); the relay is off so only ingestion is measured; the stream was filled first by a plain client (64 in flight)',
            },
            figures: {
              storedPerSecond: seconds ? round(rows / seconds, 0) : null,
              firstToLastSeconds: seconds === null ? null : round(seconds, 2),
              processStartToAllSeconds: seen.done === null ? null : round((seen.done - t0) / 1000, 2),
              stored: stored.n,
              lost: Math.max(0, rows - stored.keys),
              storedTwice: stored.n - stored.keys,
              dead: stored.dead,
              leftInStream: left,
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
