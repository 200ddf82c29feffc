/**
 * What the broker benchmarks (rabbitmq, nats, kafka) share: the metric families they print, the
 * poll of a count until it reaches its target, and QueueBox's scenario database with its
 * activity sampler. The bench polls the broker's or the inbox's count every `POLL_MS`.
 */
import { startActivitySampler } from './activity-sampler.mjs';
import { describeSettings, migrate, writeConfig } from './queuebox.mjs';
import { freePort, log, now, sleep } from './util.mjs';

const POLL_MS = 100;
/**
 * The broker scenarios read only the backends' pids off the sampler (for the CPU table), and
 * those stay put for the whole run: a slow sampler keeps its own statements off the database
 * under test, which the plain clients' scenarios do not run at all.
 */
const SAMPLER_MS = 500;

export const METRIC_FAMILIES = [
  'queuebox_outbox_messages_total',
  'queuebox_outbox_publish_duration_seconds',
  'queuebox_inbox_messages_total',
  'queuebox_inbox_rejections_total',
  'hikaricp_connections_acquire_seconds',
];

/**
 * Polls `count()` every `everyMs` until it reaches `target`; returns the times of the first
 * change and of the target.
 */
export async function watch(count, target, timeoutMs, label, everyMs = POLL_MS) {
  const deadline = now() + timeoutMs;
  let first = null;
  let last = 0;
  let lastLog = now();
  for (;;) {
    const value = await count();
    const t = now();
    if (first === null && value > 0) first = t;
    if (value >= target) return { first: first ?? t, done: t, value, timedOut: false };
    if (t > deadline) return { first, done: null, value, timedOut: true };
    if (t - lastLog > 10_000) {
      lastLog = t;
      log(`  ${label}: ${value.toLocaleString('en-US')} / ${target.toLocaleString('en-US')}`);
    }
    if (value !== last) last = value;
    await sleep(everyMs);
  }
}

/** `yaml`, when given, is what the printout and the JSON show of the configuration (a masked copy). */
export async function runQueueBox(ctx, id, db, config, body, { yaml } = {}) {
  const httpPort = await freePort();
  config.server = { httpPort };
  const configFile = writeConfig(`${ctx.stamp}-${id}`, config);
  migrate(db, configFile);
  const settings = describeSettings(db, config, configFile);
  if (yaml) settings.yaml = yaml(config);
  // The scenario database's backends, so the CPU table can name PostgreSQL's share.
  const activity = startActivitySampler({ database: db, everyMs: SAMPLER_MS });
  ctx.setBackendSource(activity.backendPids);
  try {
    return await body({ httpPort, configFile, settings });
  } finally {
    await activity.stop();
  }
}

/**
 * Seconds from the first inbox row stored to the last, by the rows' own `created_at` (the
 * store's clock when each insert was handed over): how a source scenario and its plain consumer
 * are timed alike, without a poll of the table's count on the database under test. With `skip`
 * (`--warm-rows`), from the row after the first `skip`: both sides are timed warmed up.
 */
export async function storedSpan(sql, table = 'inbox', skip = 0) {
  // `skip` rows stored first are left out: the span starts at the next one.
  const [row] = await sql`select extract(epoch from max(created_at) - (select created_at
      from ${sql(table)} order by created_at offset ${skip} limit 1))::float8 as s
    from ${sql(table)}`;
  return row.s;
}
