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
import { METRIC_FAMILIES, runQueueBox, storedSpan, watch } from './broker-run.mjs';
import { loadAverage } from './machine.mjs';
import { connect, withDatabase } from './pg.mjs';
import { pickMetrics, startQueueBox } from './queuebox.mjs';
import { log, now, round, sleep } from './util.mjs';
import { loadOutbox } from '../outbox/load.mjs';
import { outboxFinalStates } from './outbox-states.mjs';

/** A source's progress is read from QueueBox's /metrics; its rate comes from the rows. */
const SOURCE_POLL_MS = 500;

/**
 * The rows a source has stored so far, by its own counters: new rows and dead rows. Not a count
 * of the table: that is a scan which, polled while the source inserts, takes a share of the
 * database's CPU growing with the table, and the plain consumer it is compared with counts in
 * its own process.
 */
async function storedByMetrics(queuebox) {
  const picked = pickMetrics(await queuebox.metrics(), ['queuebox_inbox_messages_total{status="new"', 'queuebox_inbox_rejections_total']);
  return Object.values(picked).reduce((sum, value) => sum + value, 0);
}

const timing = (seen, t0) => {
  const seconds = seen.done === null ? null : (seen.done - seen.first) / 1000;
  return {
    seconds,
    firstToLastSeconds: seconds === null ? null : round(seconds, 2),
    processStartToAllSeconds: seen.done === null ? null : round((seen.done - t0) / 1000, 2),
  };
};

/**
 * One QueueBox scenario on a scratch database: `prepare(sql)` before QueueBox starts (its result
 * goes into the record as `loading` when given), then QueueBox, then `measure(sql, queuebox)`,
 * which watches its count and returns { seen, figures(times), after? }.
 */
async function queueboxScenario(ctx, adapter, id, scratch, { config, title, note, announce, prepare, measure }) {
  const { options } = ctx;
  const profile = cpuProfiling(ctx, id, log);
  try {
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      announce?.(db);
      const body = async ({ httpPort, configFile, settings }) => {
        const sql = connect(db, { max: 1 });
        let queuebox = null;
        try {
          const loading = await prepare?.(sql);
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
          const { seen, figures, after } = await measure(sql, queuebox);
          const metrics = pickMetrics((await queuebox.metrics()) ?? '', METRIC_FAMILIES);
          return {
            id,
            system: 'QueueBox',
            title,
            rows: options.rows,
            payloadBytes: options['body-bytes'],
            settings: { ...settings, note },
            ...(loading === undefined ? {} : { loading }),
            figures: figures(timing(seen, t0)),
            ...after,
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
      };
      return runQueueBox(ctx, id, db, config, body, { yaml: adapter.yaml });
    });
  } finally {
    await scratch.drop();
  }
}

export async function queueboxPublish(ctx, adapter, { id, concurrency }) {
  const { options } = ctx;
  const { publish } = adapter;
  const rows = options.rows;
  const scratch = await publish.scratch(id);
  const config = {
    destinations: { [adapter.key]: publish.destination(scratch) },
    routes: [{ topicPattern: '**', destination: adapter.key }],
  };
  if (concurrency !== undefined) config.outbox = { concurrency };
  return queueboxScenario(ctx, adapter, id, scratch, {
    config,
    title: `outbox → ${publish.target}, outbox.concurrency ${concurrency ?? 8}`,
    note: publish.note,
    announce: (db) =>
      log(`${id}: QueueBox outbox → ${adapter.name}, ${rows} rows, outbox.concurrency ${concurrency ?? '8 (default)'} — database ${db}`),
    async prepare(sql) {
      const loading = await loadOutbox(sql, { rows, keys: 0, batch: options['load-batch'], payloads: ctx.payloads });
      log(`  loaded ${rows} rows in ${loading.seconds} s`);
      return loading;
    },
    async measure(sql) {
      const seen = await watch(() => publish.count(scratch), rows, options.timeout * 1000, id);
      const finalStates = await outboxFinalStates(sql);
      return {
        seen,
        figures: ({ seconds, ...times }) => ({
          messagesPerSecond: seconds ? round(rows / seconds, 0) : null,
          ...times,
          [publish.countKey]: seen.value,
          lost: Math.max(0, rows - seen.value),
          timedOut: seen.timedOut,
        }),
        after: { finalStates },
      };
    },
  });
}

export async function queueboxSource(ctx, adapter, { id }) {
  const { options } = ctx;
  const { source } = adapter;
  const rows = options.rows;
  const scratch = await source.scratch(id);
  try {
    log(`${id}: ${source.filled(scratch, rows)}, then a QueueBox ${source.name ?? adapter.name} source`);
    const published = await source.fill(scratch, rows, (i) => ctx.payloads.text(i, null));
    log(`  published in ${round((published.t1 - published.t0) / 1000, 2)} s`);
  } catch (error) {
    await scratch.drop();
    throw error;
  }
  return queueboxScenario(ctx, adapter, id, scratch, {
    config: { inbox: { relay: { enabled: false } }, sources: { [adapter.key]: source.config(scratch) } },
    title: source.title,
    note: source.note,
    async measure(sql, queuebox) {
      const seen = await watch(() => storedByMetrics(queuebox), rows, options.timeout * 1000, id, SOURCE_POLL_MS);
      await sleep(1000);
      const [stored] = await sql`select count(*)::int as n, count(distinct idempotency_key)::int as keys, count(*) filter (where state = 'dead')::int as dead from inbox`;
      const skip = options['warm-rows'];
      const span = seen.timedOut ? null : await storedSpan(sql, 'inbox', skip);
      const all = seen.timedOut || skip === 0 ? null : await storedSpan(sql);
      const left = source.left ? { [source.leftKey]: await source.left(scratch) } : {};
      return {
        seen,
        figures: ({ seconds: _polled, ...times }) => ({
          storedPerSecond: span ? round((rows - skip) / span, 0) : null,
          ...(all ? { warmRows: skip, allRowsPerSecond: round(rows / all, 0) } : {}),
          ...times,
          firstToLastSeconds: span === null ? null : round(span, 2),
          stored: stored.n,
          lost: Math.max(0, rows - stored.keys),
          storedTwice: stored.n - stored.keys,
          dead: stored.dead,
          ...left,
          timedOut: seen.timedOut,
        }),
      };
    },
  });
}
