/**
 * (b) Relay throughput: 100 000 pending push rows inserted straight into the inbox, interleaved
 * over 1 000 aggregates (aggregate = i % 1000, created_at strictly increasing with i), then
 * QueueBox starts at its default configuration with a route to the sink. The relay rate is rows
 * moved into the outbox per second (outbox created_at, which the relay sets per forwarded batch);
 * the per-aggregate order is checked in the outbox (sequence order per key = inbox created
 * order) and again at the sink (X-Message-Key + payload seq).
 */
import { startActivitySampler } from '../lib/activity-sampler.mjs';
import { loadAverage } from '../lib/machine.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import {
  describeSettings,
  migrate,
  pickMetrics,
  startQueueBox,
  writeConfig,
} from '../lib/queuebox.mjs';
import { freePort, log, now, round, waitFor } from '../lib/util.mjs';
import { explainOutboxClaim } from '../outbox/explain.mjs';
import { SOURCE, ingestConfig } from './ingest.mjs';
import { loadSettings } from '../lib/context.mjs';

function relayConfig(sink, httpPort) {
  const base = ingestConfig(httpPort);
  return {
    server: base.server,
    destinations: { sink: { type: 'http', baseUrl: sink.url, path: sink.path } },
    routes: [{ topicPattern: '**', destination: 'sink' }],
    sources: base.sources,
  };
}

async function loadInbox(sql, { rows, aggregates, batch, payloads, analyze = true }) {
  const t0 = now();
  const [{ base }] = await sql`select (clock_timestamp() - interval '1 day') as base`;
  const baseMs = base.getTime();
  for (let start = 0; start < rows; start += batch) {
    const items = [];
    for (let i = start; i < Math.min(rows, start + batch); i += 1) {
      const aggregate = `agg-${i % aggregates}`;
      items.push({
        k: `r-${i}`,
        a: aggregate,
        p: payloads.object(i, aggregate),
        // created_at strictly increasing with i (1 ms apart), scheduled_at = created_at
        t: new Date(baseMs + i).toISOString(),
      });
    }
    await sql`insert into inbox (id, source, idempotency_key, aggregate_id, event_type, payload, state,
        created_at, correlation_id, headers, consumption, scheduled_at)
      select gen_random_uuid(), ${SOURCE}, e->>'k', e->>'a', 'bench.event', e->'p', 'pending',
        (e->>'t')::timestamptz, gen_random_uuid()::text, '{}'::jsonb, 'push', (e->>'t')::timestamptz
      from jsonb_array_elements(${JSON.stringify(items)}::text::jsonb) with ordinality as t(e, n)
      order by t.n`;
  }
  const seconds = (now() - t0) / 1000;
  if (analyze) await sql`analyze inbox`;
  return {
    seconds: round(seconds, 2),
    rowsPerSecond: round(rows / seconds, 0),
    statement: `INSERT INTO inbox … SELECT FROM jsonb_array_elements(…) — ${batch} rows per statement; state pending, consumption push, created_at = scheduled_at = a day ago + i ms; ${analyze ? 'then ANALYZE inbox' : 'no ANALYZE'}`,
    analyzed: analyze,
  };
}

export async function relayThroughput(ctx) {
  const { options } = ctx;
  const rows = options.rows;
  const aggregates = options.keys;
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(`in-b: relay of ${rows} rows over ${aggregates} aggregates — database ${db}`);
    const httpPort = await freePort();
    const config = relayConfig(ctx.sink, httpPort);
    const configFile = writeConfig(`${ctx.stamp}-in-b`, config);
    migrate(db, configFile);
    const sql = connect(db, { max: 1 });
    try {
      const loading = await loadInbox(sql, {
        rows,
        aggregates,
        ...loadSettings(ctx),
      });
      log(`  loaded ${rows} inbox rows in ${loading.seconds} s`);
      await ctx.sink.reset({ recordTimes: true });
      const activity = startActivitySampler({ database: db });
      ctx.setBackendSource(activity.backendPids);
      const loadBefore = loadAverage();
      const t0 = now();
      const queuebox = await startQueueBox({
        label: `${ctx.stamp}-in-b-queuebox`,
        database: db,
        configFile,
        httpPort,
      });
      ctx.cpu.setRole(queuebox.pid, 'queuebox');
      const queueboxDist = queuebox.dist;
      // --analyze-every S: a stand-in for autovacuum's ANALYZE (autovacuum is off on this server).
      let analyzer = null;
      let analyzeRuns = 0;
      if (options['analyze-every'] > 0) {
        const admin = connect(db, { max: 1 });
        analyzer = {
          admin,
          timer: setInterval(() => {
            admin`analyze outbox`
              .then(() => admin`analyze inbox`)
              .then(() => (analyzeRuns += 1))
              .catch(() => undefined);
          }, options['analyze-every'] * 1000),
        };
      }
      let relayDoneAt = null;
      let outboxAfterRelay = null;
      let deliveredAt = null;
      let metrics = '';
      try {
        let last = now();
        // Cheap checks (partial indexes), a count only every 10 s for the progress line: a
        // count(*) over the inbox 10 times a second would itself be a visible database load.
        await waitFor(
          async () => {
            if (now() - last > 10_000) {
              last = now();
              const [{ left }] =
                await sql`select count(*)::int as left from inbox where state = 'pending'`;
              log(`  in-b: ${rows - left} / ${rows} relayed`);
            }
            const [{ busy }] = await sql`select exists(select 1 from inbox where state = 'pending')
              or exists(select 1 from inbox where state = 'processing') as busy`;
            return !busy;
          },
          { timeoutMs: options.timeout * 1000, everyMs: 100, what: 'the relay to empty the inbox' },
        );
        relayDoneAt = now();
        // The outbox as the relay left it, while QueueBox is still delivering it: the claim's
        // cost there (rolled back; SKIP LOCKED keeps it out of the poller's way) and the table.
        if (!options['no-explain']) {
          outboxAfterRelay = {
            explain: await explainOutboxClaim(sql, { repeats: 3 }),
            table: (
              await sql`select n_live_tup::int, n_dead_tup::int, n_tup_upd::int, n_tup_hot_upd::int,
                last_autovacuum, last_autoanalyze, autovacuum_count::int, autoanalyze_count::int,
                pg_size_pretty(pg_total_relation_size('outbox')) as total_size,
                (select count(*)::int from outbox where state = 'pending') as pending
              from pg_stat_user_tables where relname = 'outbox'`
            )[0],
          };
          const e = outboxAfterRelay.explain;
          if (e.claim)
            log(
              `  outbox after the relay (${outboxAfterRelay.table.pending} pending): claim median ${round(e.claim.medianMs, 2)} ms, completion median ${round(e.complete.medianMs, 2)} ms; dead tuples ${outboxAfterRelay.table.n_dead_tup}`,
            );
        }
        await waitFor(async () => (await ctx.sink.summary()).unique >= rows, {
          timeoutMs: options.timeout * 1000,
          everyMs: 100,
          what: 'the outbox to deliver every relayed row',
        })
          .then(() => (deliveredAt = now()))
          .catch((e) => log(`  ${e.message}`));
        metrics = await queuebox.metrics();
      } finally {
        if (analyzer) {
          clearInterval(analyzer.timer);
          await analyzer.admin.end();
        }
        await queuebox.stop();
        await activity.stop();
      }
      const loadAfter = loadAverage();
      const [span] =
        await sql`select count(*)::int as n, min(created_at) as first, max(created_at) as last,
          count(*) filter (where created_at = (select min(created_at) from outbox))::int as in_first_batch,
          count(distinct created_at)::int as batches
        from outbox`;
      const spanMs = span.last - span.first;
      const relayRate = spanMs > 0 ? ((span.n - span.in_first_batch) / spanMs) * 1000 : null;
      const [order] = await sql`select count(*)::int as checked,
          count(*) filter (where prev_created >= created)::int as violations,
          count(*) filter (where prev_created is null)::int as keys
        from (
          select i.created_at as created,
            lag(i.created_at) over (partition by o.key order by o.sequence) as prev_created
          from outbox o join inbox i on i.id = (o.headers->>'x-inbox-id')::uuid
        ) t`;
      const [dup] =
        await sql`select count(*)::int - count(distinct headers->>'x-inbox-id')::int as duplicates,
          count(*) filter (where key is null)::int as null_keys from outbox`;
      const states =
        await sql`select state, count(*)::int as n from inbox group by state order by state`;
      const sink = await ctx.sink.summary();
      const windowEnd = relayDoneAt ?? now();
      const windowStart = span.first ? Math.max(t0, span.first.getTime()) : t0;
      return {
        id: 'in-b',
        system: 'QueueBox',
        title: `(b) relay, ${rows} pending push rows over ${aggregates} aggregates`,
        rows,
        keys: aggregates,
        payloadBytes: options['body-bytes'],
        settings: {
          ...describeSettings(db, config, configFile),
          analyzeDuringRun:
            options['analyze-every'] > 0
              ? `ANALYZE outbox; ANALYZE inbox every ${options['analyze-every']} s by the bench (a stand-in for autovacuum, which is off on this server)`
              : 'none: the outbox starts empty and has no statistics during the run (autovacuum is off on this server)',
          note: 'relay on (default); the outbox poller delivers the relayed rows to the sink at the same time (default configuration: inbox.relay.batchSize 100, inbox.relay.pollIntervalMs 100, outbox.batchSize 100, outbox.concurrency 8, database.poolSize 10)',
        },
        loading,
        loadAverage: { before: loadBefore, after: loadAfter },
        figures: {
          relayRowsPerSecond: round(relayRate, 0),
          relayFirstToLastSeconds: round(spanMs / 1000, 2),
          relayBatches: span.batches,
          outboxRows: span.n,
          wallSecondsStartToInboxEmpty:
            relayDoneAt === null ? null : round((relayDoneAt - t0) / 1000, 2),
          wallSecondsStartToAllDelivered:
            deliveredAt === null ? null : round((deliveredAt - t0) / 1000, 2),
          outboxDeliveryPerSecond:
            sink.first && sink.last > sink.first
              ? round(((sink.unique - 1) / (sink.last - sink.first)) * 1000, 0)
              : null,
          orderCheckedRows: order.checked,
          orderViolationsInOutbox: order.violations,
          aggregatesInOutbox: order.keys,
          duplicateOutboxRows: dup.duplicates,
          outboxRowsWithoutKey: dup.null_keys,
          inboxStates: Object.fromEntries(states.map((r) => [r.state, r.n])),
          sinkDelivered: sink.unique,
          sinkOrderViolations: sink.violations,
          sinkDuplicates: sink.duplicates,
          analyzeRunsDuringRun: analyzeRuns,
        },
        outboxAfterRelay,
        deliveryWindow:
          sink.first && sink.last
            ? {
                cpu: ctx.cpu.window(Math.max(windowEnd, sink.first), sink.last),
                database: activity.window(Math.max(windowEnd, sink.first), sink.last),
              }
            : null,
        cpu: ctx.cpu.window(windowStart, windowEnd),
        database: activity.window(windowStart, windowEnd),
        queueboxMetrics: pickMetrics(metrics, [
          'queuebox_inbox_messages_total',
          'queuebox_inbox_relay_errors_total',
          'queuebox_claims_lost_total',
          'queuebox_outbox_messages_total',
        ]),
        log: queuebox.logFile,
        queueboxDist,
      };
    } finally {
      await sql.end();
    }
  });
}
