/**
 * `rep-<n>-<size>`: n QueueBox processes at their defaults against one database holding one
 * backlog of `<size>` rows over `--keys` keys (1,000). They are spawned together and measured as
 * one worker: messages/s first to last receipt at the sink over all of them, per-key order and
 * duplicates as the sink saw them, CPU per replica (roles `queuebox r1` … `queuebox r<n>`), and
 * from each replica's /metrics what it sent, so an uneven share or lost claims show.
 */
import { connect, withDatabase } from '../lib/pg.mjs';
import {
  describeSettings,
  migrate,
  pickMetrics,
  startQueueBox,
  writeConfig,
} from '../lib/queuebox.mjs';
import { freePort, log, round } from '../lib/util.mjs';
import { measureDelivery } from './delivery.mjs';
import { loadOutbox } from './load.mjs';
import { outboxConfig } from './queuebox-outbox.mjs';
import { loadSettings } from '../lib/context.mjs';
import { startTogether } from '../lib/process-group.mjs';
import { outboxDrained, outboxFinalStates } from '../lib/outbox-states.mjs';

export const REPLICA_COUNTS = [1, 2, 4];
export const replicaId = (n, size) => `rep-${n}-${size}`;

const REPLICA_METRICS = [
  'queuebox_outbox_messages_total',
  'queuebox_outbox_publish_duration_seconds_sum',
  'queuebox_outbox_publish_duration_seconds_count',
  'queuebox_outbox_processing_duration_seconds_sum',
  'queuebox_outbox_processing_duration_seconds_count',
  'queuebox_outbox_messages_reclaimed_total',
  'queuebox_claims_lost_total',
];

const roleOf = (i) => `queuebox r${i + 1}`;

/** One YAML file per replica: they differ only in the HTTP port. */
async function replicaConfigs(ctx, id, n) {
  const list = [];
  for (let i = 0; i < n; i += 1) {
    const httpPort = await freePort();
    const config = outboxConfig(ctx.sink, httpPort);
    list.push({ httpPort, config, configFile: writeConfig(`${ctx.stamp}-${id}-r${i + 1}`, config) });
  }
  return list;
}

/** Spawns every replica at once; resolves when all answer /health/ready; one worker to measure. */
async function startReplicas(ctx, id, db, configs) {
  const { up, group } = await startTogether(
    configs.map((c, i) =>
      startQueueBox({
        label: `${ctx.stamp}-${id}-queuebox-r${i + 1}`,
        database: db,
        configFile: c.configFile,
        httpPort: c.httpPort,
      }),
    ),
    roleOf,
  );
  return {
    ...group,
    dist: up[0].dist,
    async metrics() {
      return Promise.all(up.map((r) => r.metrics()));
    },
  };
}

/**
 * Per replica: messages sent (by its /metrics), claims lost, leases reclaimed, the mean publish
 * and processing (publish and terminal write) in ms, CPU % of one core.
 */
function perReplica(texts, cpu) {
  return (texts ?? []).map((text, i) => {
    const m = pickMetrics(text, REPLICA_METRICS);
    const sum = (prefix) =>
      Object.entries(m)
        .filter(([k]) => k.startsWith(prefix))
        .reduce((a, [, v]) => a + v, 0);
    const meanMs = (family) => {
      const count = sum(`${family}_count`);
      return count > 0 ? round((sum(`${family}_sum`) / count) * 1000, 1) : null;
    };
    return {
      replica: i + 1,
      sent: m['queuebox_outbox_messages_total{status="sent"}'] ?? 0,
      claimsLost: sum('queuebox_claims_lost_total'),
      reclaimed: sum('queuebox_outbox_messages_reclaimed_total'),
      publishMeanMs: meanMs('queuebox_outbox_publish_duration_seconds'),
      processingMeanMs: meanMs('queuebox_outbox_processing_duration_seconds'),
      cpuPercentOfOneCore: cpu?.percentOfOneCore?.[roleOf(i)] ?? null,
    };
  });
}

/**
 * What the delivered rows say about the statements that moved them: a claim stamps its rows'
 * claimed_at with one app time, a completion their updated_at with another, so rows sharing a
 * value came in one statement (two replicas' statements in the same millisecond count as one).
 * In hand = claim to completion of a row; a key waits = its previous row's completion to the
 * claim of its next row.
 */
async function statementShapes(sql) {
  const [row] = await sql`with
      claims as (select count(*) as n from outbox where state = 'sent' group by claimed_at),
      completions as (select count(*) as n from outbox where state = 'sent' group by updated_at),
      held as (select extract(epoch from updated_at - claimed_at) * 1000 as ms
        from outbox where state = 'sent'),
      waits as (select extract(epoch from claimed_at - lag(updated_at)
          over (partition by key order by sequence)) * 1000 as ms
        from outbox where state = 'sent')
    select (select count(*) from claims)::int as claims,
      (select avg(n) from claims)::float8 as rows_per_claim,
      (select count(*) from completions)::int as completions,
      (select avg(n) from completions)::float8 as rows_per_completion,
      (select percentile_cont(array[0.5, 0.9]) within group (order by ms) from held)::float8[] as in_hand,
      (select percentile_cont(array[0.5, 0.9]) within group (order by ms) from waits where ms is not null)::float8[] as key_waits`;
  return {
    claims: row.claims,
    rowsPerClaim: round(row.rows_per_claim ?? 0, 1),
    completions: row.completions,
    rowsPerCompletion: round(row.rows_per_completion ?? 0, 1),
    inHandMs: { p50: round(row.in_hand?.[0] ?? 0, 0), p90: round(row.in_hand?.[1] ?? 0, 0) },
    keyWaitsMs: { p50: round(row.key_waits?.[0] ?? 0, 0), p90: round(row.key_waits?.[1] ?? 0, 0) },
  };
}

export async function queueboxReplicas(ctx, { id, title, replicas, keys, rows }) {
  const { options } = ctx;
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(`${id}: ${title} — database ${db}`);
    const configs = await replicaConfigs(ctx, id, replicas);
    migrate(db, configs[0].configFile);
    const sql = connect(db, { max: 1 });
    try {
      const loading = await loadOutbox(sql, {
        rows,
        keys,
        ...loadSettings(ctx),
      });
      log(`  loaded ${rows} rows in ${loading.seconds} s (${loading.rowsPerSecond} rows/s)`);
      const result = await measureDelivery(ctx, db, {
        label: id,
        rows,
        role: roleOf(0),
        timeoutMs: options.timeout * 1000,
        start: () => startReplicas(ctx, id, db, configs),
        allDone: () => outboxDrained(sql),
      });
      const finalStates = await outboxFinalStates(sql);
      const byReplica = perReplica(result.metricsText, result.cpu);
      delete result.metricsText;
      const statements = await statementShapes(sql);
      log(
        `  per replica (sent / claims lost / CPU %): ${byReplica.map((r) => `r${r.replica} ${r.sent}/${r.claimsLost}/${r.cpuPercentOfOneCore ?? '—'}`).join(', ')}; ${JSON.stringify(statements)}`,
      );
      return {
        id,
        system: 'QueueBox',
        title,
        rows,
        keys,
        replicas,
        payloadBytes: options['body-bytes'],
        settings: {
          ...describeSettings(db, configs[0].config, configs[0].configFile),
          statistics: options['no-analyze']
            ? 'no ANALYZE after loading (--no-analyze)'
            : 'ANALYZE after loading (autovacuum is off on this server)',
          note: `${replicas} QueueBox process${replicas > 1 ? 'es' : ''} at their defaults, one YAML file each (only server.httpPort differs), spawned together against one database`,
        },
        loading,
        ...result,
        finalStates,
        byReplica,
        statements,
      };
    } finally {
      await sql.end();
    }
  });
}
