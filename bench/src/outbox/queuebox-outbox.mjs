/** QueueBox's outbox throughput scenarios: (a) null keys, (b) 1 000 keys; (c) is in latency.mjs. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startOtlpSink } from '../lib/otlp-sink.mjs';
import { summarizeProfile } from '../lib/cpuprofile.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import {
  describeSettings,
  migrate,
  pickMetrics,
  startQueueBox,
  writeConfig,
} from '../lib/queuebox.mjs';
import { RESULTS_DIR, freePort, log, round } from '../lib/util.mjs';
import { measureDelivery } from './delivery.mjs';
import { explainOutboxClaim } from './explain.mjs';
import { loadOutbox } from './load.mjs';
import { loadSettings } from '../lib/context.mjs';
import { outboxDrained, outboxFinalStates } from '../lib/outbox-states.mjs';

const METRIC_FAMILIES = [
  'queuebox_outbox_messages_total',
  'queuebox_outbox_publish_duration_seconds',
  'queuebox_outbox_processing_duration_seconds',
  'hikaricp_connections_acquire_seconds',
  'hikaricp_connections_usage_seconds',
  'hikaricp_connections_pending',
  'hikaricp_connections_max',
  'queuebox_claims_lost_total',
];

export function outboxConfig(sink, httpPort) {
  return {
    server: { httpPort },
    destinations: { sink: { type: 'http', baseUrl: sink.url, path: sink.path } },
    routes: [{ topicPattern: '**', destination: 'sink' }],
  };
}

async function prepare(ctx, id, db) {
  const httpPort = await freePort();
  const config = outboxConfig(ctx.sink, httpPort);
  const configFile = writeConfig(`${ctx.stamp}-${id}`, config);
  migrate(db, configFile);
  return { httpPort, config, configFile, settings: describeSettings(db, config, configFile) };
}

export async function queueboxThroughput(
  ctx,
  { id, title, keys, rows = ctx.options.rows, profile = false, tracing = false, execPath },
) {
  const { options } = ctx;
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const { httpPort, configFile, settings } = await prepare(ctx, id, db);
    const sql = connect(db, { max: 1 });
    try {
      const loading = await loadOutbox(sql, {
        rows,
        keys,
        ...loadSettings(ctx),
      });
      log(
        `  loaded ${rows} rows in ${loading.seconds} s (${loading.rowsPerSecond} rows/s)`,
      );
      let explain = null;
      if (!options['no-explain'] && !profile) {
        explain = await explainOutboxClaim(sql);
        if (explain.claim)
          log(
            `  EXPLAIN ANALYZE claim of 100 on ${rows} pending: first ${round(explain.claim.firstMs, 2)} ms, median ${round(explain.claim.medianMs, 2)} ms; completion of 100: median ${round(explain.complete.medianMs, 2)} ms`,
          );
      }
      // Tracing on at a sampler of 1.0, every span exported over OTLP/HTTP protobuf to a local
      // stand-in collector (lib/otlp-sink.mjs); the other variables keep their defaults.
      const otlp = tracing ? await startOtlpSink() : null;
      const extraEnv = otlp
        ? {
            OTEL_TRACES_EXPORTER: 'otlp',
            OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
            OTEL_TRACES_SAMPLER: 'always_on',
          }
        : {};
      const profileDir = join(RESULTS_DIR, 'profiles', `${ctx.stamp}-${id}`);
      if (profile) mkdirSync(profileDir, { recursive: true });
      const result = await measureDelivery(ctx, db, {
        label: id,
        rows,
        role: 'queuebox',
        timeoutMs: options.timeout * 1000,
        start: () =>
          startQueueBox({
            label: `${ctx.stamp}-${id}-queuebox`,
            database: db,
            configFile,
            httpPort,
            nodeArgs: profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
            extraEnv,
            ...(execPath ? { execPath } : {}),
          }),
        allDone: () => outboxDrained(sql),
      });
      const finalStates = await outboxFinalStates(sql);
      let traces = null;
      if (otlp) {
        traces = { env: extraEnv, received: otlp.summary() };
        await otlp.close();
        log(
          `  traces: ${traces.received.spans} spans in ${traces.received.requests} exports (${traces.received.bytes} bytes): ${JSON.stringify(traces.received.byName)}`,
        );
      }
      const metrics = pickMetrics(result.metricsText ?? '', METRIC_FAMILIES);
      delete result.metricsText;
      const scenario = {
        id,
        system: 'QueueBox',
        title,
        rows,
        keys,
        payloadBytes: options['body-bytes'],
        settings: {
          ...settings,
          statistics: options['no-analyze']
            ? 'no ANALYZE after loading (--no-analyze); autovacuum is off on this server, so the planner has no statistics'
            : 'ANALYZE after loading (autovacuum is off on this server; a production server would analyze on its own)',
          note: 'QueueBox defaults for everything else: outbox.batchSize 100, outbox.concurrency 8, outbox.pollIntervalMs 100, database.poolSize 10, capture polling',
        },
        loading,
        ...result,
        finalStates,
        queueboxMetrics: metrics,
        explain,
        ...(traces ? { traces } : {}),
      };
      if (profile) scenario.profile = summarizeProfile(profileDir);
      return scenario;
    } finally {
      await sql.end();
    }
  });
}
