/**
 * (a) HTTP ingestion: autocannon at 64 connections against one HMAC-authenticated HTTP source,
 * every body with a unique id and its own signature; then, in its own fresh database, the raw
 * rate of the same rows written as single-row INSERT … ON CONFLICT DO NOTHING, one transaction
 * each, from 64 connections.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startActivitySampler } from '../lib/activity-sampler.mjs';
import { summarizeProfile } from '../lib/cpuprofile.mjs';
import { loadAverage } from '../lib/machine.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import {
  describeSettings,
  migrate,
  pickMetrics,
  startQueueBox,
  writeConfig,
} from '../lib/queuebox.mjs';
import { RESULTS_DIR, freePort, log, now, round } from '../lib/util.mjs';

export const SOURCE = 'bench';
const SECRET = `bench-${randomBytes(12).toString('hex')}`;

export function ingestConfig(httpPort) {
  return {
    server: { httpPort },
    inbox: { relay: { enabled: false } },
    sources: {
      [SOURCE]: {
        path: '/bench',
        idempotencyKeyPath: '$.id',
        eventTypePath: '$.type',
        aggregateIdPath: '$.aggregate',
        auth: {
          type: 'hmac',
          secret: SECRET,
          headerName: 'X-Signature',
          signaturePrefix: 'sha256=',
        },
      },
    },
  };
}

/** Bodies of `bytes` JSON: {"id","type","aggregate","data"}; ids unique per run and prefix. */
export function makeBodies(bytes, aggregates) {
  const run = randomBytes(4).toString('hex');
  const filler = randomBytes(bytes).toString('base64');
  return (prefix, n) => {
    const head = {
      id: `${run}-${prefix}-${n}`,
      type: 'bench.event',
      aggregate: `agg-${n % aggregates}`,
      data: '',
    };
    const size = JSON.stringify(head).length;
    head.data = filler.slice(0, Math.max(0, bytes - size));
    return head;
  };
}

const sign = (body) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

function runAutocannon({ url, connections, duration, bodyOf, prefix }) {
  let n = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections,
        duration,
        pipelining: 1,
        requests: [
          {
            method: 'POST',
            setupRequest: (request) => {
              const body = JSON.stringify(bodyOf(prefix, n++));
              return {
                ...request,
                body,
                headers: {
                  ...request.headers,
                  'content-type': 'application/json',
                  'x-signature': sign(body),
                },
              };
            },
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

export async function ingestHttp(ctx, { profile = false } = {}) {
  const { options } = ctx;
  const id = profile ? 'in-a-prof' : 'in-a';
  const profileDir = join(RESULTS_DIR, 'profiles', `${ctx.stamp}-${id}`);
  if (profile) mkdirSync(profileDir, { recursive: true });
  const bodyOf = makeBodies(options['body-bytes'], options.keys);
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(
      `${id}: HTTP ingestion${profile ? ' with QueueBox under --cpu-prof' : ''} — database ${db}`,
    );
    const httpPort = await freePort();
    const config = ingestConfig(httpPort);
    const configFile = writeConfig(`${ctx.stamp}-${id}`, config);
    migrate(db, configFile);
    const sql = connect(db, { max: 1 });
    const activity = startActivitySampler({ database: db });
    ctx.setBackendSource(activity.backendPids);
    const queuebox = await startQueueBox({
      label: `${ctx.stamp}-${id}-queuebox`,
      database: db,
      configFile,
      httpPort,
      nodeArgs: profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    });
    ctx.cpu.setRole(queuebox.pid, 'queuebox');
    const url = `${queuebox.base}/inbox/bench`;
    try {
      log(`  warm-up ${options.warmup} s`);
      await runAutocannon({
        url,
        connections: options.connections,
        duration: options.warmup,
        bodyOf,
        prefix: 'w',
      });
      const loadBefore = loadAverage();
      const t0 = now();
      log(`  autocannon ${options.connections} connections for ${options.duration} s`);
      const result = await runAutocannon({
        url,
        connections: options.connections,
        duration: options.duration,
        bodyOf,
        prefix: 'm',
      });
      const t1 = now();
      const loadAfter = loadAverage();
      const cpu = ctx.cpu.window(t0, t1);
      const database = activity.window(t0, t1);
      const metrics = pickMetrics(await queuebox.metrics(), [
        'queuebox_inbox_messages_total',
        'queuebox_inbox_rejections_total',
        'hikaricp_connections_usage_seconds',
        'hikaricp_connections_acquire_seconds',
        'hikaricp_connections_pending',
      ]);
      const codes = Object.fromEntries(
        Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, Number(v.count)]),
      );
      const accepted = codes['202'] ?? 0;
      const seconds = (t1 - t0) / 1000;
      const [{ n: stored }] =
        await sql`select count(*)::int as n from inbox where idempotency_key like ${'%-m-%'}`;
      const [sample] =
        await sql`select headers, correlation_id, state, consumption from inbox limit 1`;
      return {
        id,
        system: 'QueueBox',
        title: profile
          ? '(a) HTTP ingestion under --cpu-prof (figures not comparable)'
          : '(a) HTTP ingestion, HMAC source, unique ids',
        settings: {
          ...describeSettings(db, config, configFile),
          secretNote: 'the hmac secret is random per run',
          note: 'inbox.relay.enabled: false so that only ingestion is measured (pending rows stay in the inbox); everything else default: database.poolSize 10, inbox.maxBodyBytes 1 MiB',
        },
        loadAverage: { before: loadBefore, after: loadAfter },
        figures: {
          acceptedPerSecond: round(accepted / seconds, 0),
          accepted202: accepted,
          statusCodes: codes,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          latencyMs: {
            p50: result.latency.p50,
            p90: result.latency.p90,
            p99: result.latency.p99,
            max: result.latency.max,
            mean: result.latency.mean,
          },
          seconds: round(seconds, 1),
          rowsStoredForMainRun: stored,
        },
        loadGenerator: {
          tool: `autocannon, in the bench process, ${options.connections} connections, pipelining 1, ${options.warmup} s warm-up first`,
          bodyBytes: options['body-bytes'],
          body: '{"id":"<run>-m-<n>","type":"bench.event","aggregate":"agg-<n % 1000>","data":"<filler>"}',
          signature:
            'X-Signature: sha256=<hex HMAC-SHA256 of the body>, computed per request with node:crypto',
        },
        storedRowSample: sample,
        cpu,
        database,
        queueboxMetrics: metrics,
        log: queuebox.logFile,
        queueboxDist: queuebox.dist,
      };
    } finally {
      await queuebox.stop();
      await activity.stop();
      await sql.end();
    }
  }).then((result) => (profile ? { ...result, profile: summarizeProfile(profileDir) } : result));
}

export async function ingestRaw(ctx, headersSample) {
  const { options } = ctx;
  const bodyOf = makeBodies(options['body-bytes'], options.keys);
  return withDatabase('qb_bench', options['keep-db'], async (db) => {
    log(
      `in-a-raw: raw INSERT … ON CONFLICT DO NOTHING from ${options.connections} connections — database ${db}`,
    );
    const httpPort = await freePort();
    const configFile = writeConfig(`${ctx.stamp}-in-a-raw`, ingestConfig(httpPort));
    migrate(db, configFile);
    const sql = connect(db, { max: options.connections, prepare: true });
    const activity = startActivitySampler({ database: db });
    ctx.setBackendSource(activity.backendPids);
    const headers = JSON.stringify(headersSample ?? { 'content-type': 'application/json' });
    const insert = (prefix, n) => {
      const body = bodyOf(prefix, n);
      return sql`insert into inbox (id, source, idempotency_key, aggregate_id, event_type, payload, state,
          created_at, correlation_id, headers, consumption, scheduled_at)
        values (gen_random_uuid(), ${SOURCE}, ${body.id}, ${body.aggregate}, ${body.type}, ${JSON.stringify(body)}::text::jsonb,
          'pending', ${new Date()}, ${crypto.randomUUID()}, ${headers}::text::jsonb, 'push', clock_timestamp())
        on conflict (source, idempotency_key) do nothing`;
    };
    const drive = async (prefix, seconds) => {
      let n = 0;
      let done = 0;
      const end = now() + seconds * 1000;
      const loops = Array.from({ length: options.connections }, async () => {
        while (now() < end) {
          await insert(prefix, n++);
          done += 1;
        }
      });
      await Promise.all(loops);
      return done;
    };
    try {
      await Promise.all(Array.from({ length: options.connections }, () => sql`select 1`));
      await drive('w', options.warmup);
      const loadBefore = loadAverage();
      const t0 = now();
      const done = await drive('m', options.duration);
      const t1 = now();
      const loadAfter = loadAverage();
      const [{ n: stored }] =
        await sql`select count(*)::int as n from inbox where idempotency_key like ${'%-m-%'}`;
      return {
        id: 'in-a-raw',
        system: 'raw SQL',
        title: '(a) raw single-row INSERT … ON CONFLICT DO NOTHING, one transaction each',
        settings: {
          client: `postgres.js ${ctx.conditions.machine.peers.postgres}, max ${options.connections} connections, ${options.connections} concurrent loops in the bench process, prepared statements`,
          statement:
            'INSERT INTO inbox (id, source, idempotency_key, aggregate_id, event_type, payload, state, created_at, correlation_id, headers, consumption, scheduled_at) VALUES (…) ON CONFLICT (source, idempotency_key) DO NOTHING — the same columns QueueBox writes, the headers of a stored row',
          schema: 'the QueueBox inbox table and all its indexes (migrated the same way)',
        },
        loadAverage: { before: loadBefore, after: loadAfter },
        figures: {
          insertsPerSecond: round(done / ((t1 - t0) / 1000), 0),
          inserts: done,
          stored,
          seconds: round((t1 - t0) / 1000, 1),
        },
        cpu: ctx.cpu.window(t0, t1),
        database: activity.window(t0, t1),
      };
    } finally {
      await activity.stop();
      await sql.end();
    }
  });
}
