/**
 * QueueBox against a broker, the same two scenarios for every broker: (1) the outbox delivering a
 * loaded backlog to the broker; (2) a broker source storing a loaded queue, stream or topic into
 * the inbox at its defaults, with the relay off so only ingestion is measured. QueueBox runs as its
 * own process (the built dist); the bench polls the broker's count or the inbox count and reports
 * first → last. What differs per broker is its adapter (see rabbitmq/, nats/, kafka/):
 *
 *   name             the broker as the log and the titles say it ("RabbitMQ")
 *   key              the destination's and the source's name in the configuration ("mq")
 *   yaml?(config)    what the printout and the JSON show of the configuration (a masked copy)
 *   publish          { target, countKey, note, scratch(id), destination(scratch), count(scratch) }
 *                    target: what the outbox delivers to ("exchange"); countKey: the figure that
 *                    holds the broker's count at the end ("inQueue")
 *   source           { name?, title, note, scratch(id), fill(scratch, rows, body), filled(scratch, rows),
 *                      config(scratch), left?(scratch), leftKey? }
 *                    fill resolves to { t0, t1 } (ms); the source's key is the message's own id
 *                    `m-<i>` because the bodies carry no `id`, the default key path.
 */
import { cpuProfiling } from './cpuprofile.mjs';
import { METRIC_FAMILIES, runQueueBox, watch } from './broker-run.mjs';
import { loadAverage } from './machine.mjs';
import { connect, withDatabase } from './pg.mjs';
import { pickMetrics, startQueueBox } from './queuebox.mjs';
import { log, now, round, sleep } from './util.mjs';
import { loadOutbox } from '../outbox/load.mjs';

// A QueueBox process for one scenario; --cpu-prof runs it under node --cpu-prof.
async function startFor(ctx, id, db, configFile, httpPort, profile) {
  const queuebox = await startQueueBox({
    label: `${ctx.stamp}-${id}-queuebox`,
    database: db,
    configFile,
    httpPort,
    nodeArgs: profile.nodeArgs,
  });
  ctx.cpu.setRole(queuebox.pid, 'queuebox');
  return queuebox;
}

const timing = (seen, t0) => {
  const seconds = seen.done === null ? null : (seen.done - seen.first) / 1000;
  return {
    seconds,
    firstToLastSeconds: seconds === null ? null : round(seconds, 2),
    processStartToAllSeconds: seen.done === null ? null : round((seen.done - t0) / 1000, 2),
  };
};

export async function queueboxPublish(ctx, adapter, { id, concurrency }) {
  const { options } = ctx;
  const { publish } = adapter;
  const rows = options.rows;
  const scratch = await publish.scratch(id);
  const profile = cpuProfiling(ctx, id, log);
  try {
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      log(`${id}: QueueBox outbox → ${adapter.name}, ${rows} rows, outbox.concurrency ${concurrency ?? '8 (default)'} — database ${db}`);
      const config = {
        destinations: { [adapter.key]: publish.destination(scratch) },
        routes: [{ topicPattern: '**', destination: adapter.key }],
      };
      if (concurrency !== undefined) config.outbox = { concurrency };
      return runQueueBox(ctx, id, db, config, async ({ httpPort, configFile, settings }) => {
        const sql = connect(db, { max: 1 });
        let queuebox = null;
        try {
          const loading = await loadOutbox(sql, { rows, keys: 0, batch: options['load-batch'], payloads: ctx.payloads });
          log(`  loaded ${rows} rows in ${loading.seconds} s`);
          const loadBefore = loadAverage();
          const t0 = now();
          queuebox = await startFor(ctx, id, db, configFile, httpPort, profile);
          const seen = await watch(() => publish.count(scratch), rows, options.timeout * 1000, id);
          const metrics = pickMetrics((await queuebox.metrics()) ?? '', METRIC_FAMILIES);
          const states = await sql`select state, count(*)::int as n from outbox group by state order by state`;
          const { seconds, ...times } = timing(seen, t0);
          return {
            id,
            system: 'QueueBox',
            title: `outbox → ${publish.target}, outbox.concurrency ${concurrency ?? 8}`,
            rows,
            payloadBytes: options['body-bytes'],
            settings: { ...settings, note: publish.note },
            loading,
            figures: {
              messagesPerSecond: seconds ? round(rows / seconds, 0) : null,
              ...times,
              [publish.countKey]: seen.value,
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
      }, { yaml: adapter.yaml });
    });
  } finally {
    await scratch.drop();
  }
}

export async function queueboxSource(ctx, adapter, { id }) {
  const { options } = ctx;
  const { source } = adapter;
  const rows = options.rows;
  const scratch = await source.scratch(id);
  const profile = cpuProfiling(ctx, id, log);
  try {
    log(`${id}: ${source.filled(scratch, rows)}, then a QueueBox ${source.name ?? adapter.name} source`);
    const published = await source.fill(scratch, rows, (i) => ctx.payloads.text(i, null));
    log(`  published in ${round((published.t1 - published.t0) / 1000, 2)} s`);
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      const config = { inbox: { relay: { enabled: false } }, sources: { [adapter.key]: source.config(scratch) } };
      return runQueueBox(ctx, id, db, config, async ({ httpPort, configFile, settings }) => {
        const sql = connect(db, { max: 1 });
        let queuebox = null;
        try {
          const loadBefore = loadAverage();
          const t0 = now();
          queuebox = await startFor(ctx, id, db, configFile, httpPort, profile);
          const count = async () => (await sql`select count(*)::int as n from inbox`)[0].n;
          const seen = await watch(count, rows, options.timeout * 1000, id);
          await sleep(1000);
          const [stored] = await sql`select count(*)::int as n, count(distinct idempotency_key)::int as keys, count(*) filter (where state = 'dead')::int as dead from inbox`;
          const left = source.left ? { [source.leftKey]: await source.left(scratch) } : {};
          const metrics = pickMetrics((await queuebox.metrics()) ?? '', METRIC_FAMILIES);
          const { seconds, ...times } = timing(seen, t0);
          return {
            id,
            system: 'QueueBox',
            title: source.title,
            rows,
            payloadBytes: options['body-bytes'],
            settings: { ...settings, note: source.note },
            figures: {
              storedPerSecond: seconds ? round(rows / seconds, 0) : null,
              ...times,
              stored: stored.n,
              lost: Math.max(0, rows - stored.keys),
              storedTwice: stored.n - stored.keys,
              dead: stored.dead,
              ...left,
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
      }, { yaml: adapter.yaml });
    });
  } finally {
    await scratch.drop();
  }
}
