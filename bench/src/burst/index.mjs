/**
 * `pnpm bench burst`: the memory of a broker source under bursts of large messages. QueueBox
 * runs with `inbox.maxBodyBytes: 8 MiB` and otherwise its defaults (RabbitMQ prefetchCount 10,
 * NATS batchSize 100) and stores bursts of large messages published all at once: 5 MB bodies
 * into a RabbitMQ queue (two prefetch windows a burst), 1 MB bodies (the NATS server's default
 * max_payload) into a JetStream stream (one full fetch a burst). The bench samples QueueBox's
 * resident set (VmRSS) every 50 ms and reads its peak (VmHWM) at the end; the bound to hold is
 * 250 MB. The relay is off, so only ingestion is measured.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createContext, runScenarios } from '../lib/context.mjs';
import { runQueueBox } from '../lib/broker-run.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { startQueueBox, toYaml } from '../lib/queuebox.mjs';
import { printRunStart, saveResults, section, table } from '../lib/report.mjs';
import { round, sleep, waitFor } from '../lib/util.mjs';
import { RABBITMQ_URL, maskedUrl, openBroker, publishConfirmed } from '../rabbitmq/broker.mjs';
import { NATS_URL, openServer, publishAcked } from '../nats/server.mjs';

const MAX_BODY_BYTES = 8 * 1_048_576;
const RSS_BOUND_MB = 250;
const SAMPLE_MS = 50;

const SCENARIOS = {
  'burst-rabbitmq': { broker: 'rabbitmq', bodyBytes: 5_000_000, perBurst: 20, bursts: 3 },
  'burst-nats': { broker: 'nats', bodyBytes: 1_000_000, perBurst: 100, bursts: 3 },
};

/** A JSON body of `bytes` bytes whose `id` is the source's key (the default path `$.id`). */
function body(bytes) {
  const id = randomUUID();
  const head = `{"id":"${id}","pad":"`;
  return `${head}${'x'.repeat(bytes - head.length - 2)}"}`;
}

function memoryMb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? round(Number(match[1]) / 1024, 1) : null;
  } catch {
    return null;
  }
}

async function scenario(ctx, id, spec) {
  const rabbit = spec.broker === 'rabbitmq' ? await openBroker() : null;
  const nats = spec.broker === 'nats' ? await openServer() : null;
  const scratch = rabbit ? await rabbit.scratch(id, { exchange: false }) : await nats.scratch(id);
  try {
    return await withDatabase('qb_bench', ctx.options['keep-db'], async (db) => {
      const source = rabbit
        ? { type: 'rabbitmq', queueName: scratch.queue, connectionUrl: RABBITMQ_URL }
        : { type: 'nats', servers: NATS_URL, stream: scratch.stream, durable: 'burst', filterSubject: scratch.subject };
      const config = { inbox: { maxBodyBytes: MAX_BODY_BYTES, relay: { enabled: false } }, sources: { burst: source } };
      const yaml = (c) => JSON.parse(JSON.stringify(c).replaceAll(RABBITMQ_URL, maskedUrl()));
      return runQueueBox(ctx, id, db, config, async ({ httpPort, configFile, settings }) => {
        const sql = connect(db, { max: 1 });
        let queuebox = null;
        try {
          queuebox = await startQueueBox({ label: `${ctx.stamp}-${id}-queuebox`, database: db, configFile, httpPort });
          const pid = queuebox.pid;
          await sleep(1000);
          const idleRss = memoryMb(pid, 'VmRSS');
          let peakSampled = idleRss ?? 0;
          const sampler = setInterval(() => {
            const rss = memoryMb(pid, 'VmRSS');
            if (rss !== null && rss > peakSampled) peakSampled = rss;
          }, SAMPLE_MS);
          const bursts = [];
          const count = async () => (await sql`select count(*)::int as n from inbox`)[0].n;
          try {
            for (let b = 0; b < spec.bursts; b++) {
              const before = peakSampled;
              const target = (b + 1) * spec.perBurst;
              const bodies = Array.from({ length: spec.perBurst }, () => body(spec.bodyBytes));
              const t0 = Date.now();
              if (rabbit) {
                await publishConfirmed(rabbit.connection, { queue: scratch.queue, count: spec.perBurst, inFlight: spec.perBurst, body: (i) => bodies[i] });
              } else {
                await publishAcked(nats.connection, { subject: scratch.subject, count: spec.perBurst, inFlight: 16, body: (i) => bodies[i] });
              }
              await waitFor(async () => (await count()) >= target, { timeoutMs: ctx.options.timeout * 1000, what: `burst ${b + 1} stored` });
              bursts.push({ burst: b + 1, messages: spec.perBurst, seconds: round((Date.now() - t0) / 1000, 2), peakRssMbSoFar: peakSampled, rose: round(peakSampled - before, 1) });
              await sleep(1000);
            }
          } finally {
            clearInterval(sampler);
          }
          const peakHwm = memoryMb(pid, 'VmHWM');
          const [rows] = await sql`select count(*)::int as n, count(*) filter (where state = 'dead')::int as dead, max(octet_length(payload::text))::int as largest from inbox`;
          return {
            id,
            system: 'QueueBox',
            title: `${spec.broker} source, bursts of ${spec.perBurst} × ${spec.bodyBytes.toLocaleString('en-US')} B`,
            settings: { ...settings, yaml: yaml(settings.yaml), note: `inbox.maxBodyBytes ${MAX_BODY_BYTES} (8 MiB), QueueBox defaults for everything else; the relay is off` },
            figures: { idleRssMb: idleRss, peakRssSampledMb: peakSampled, peakRssHwmMb: peakHwm, bound: RSS_BOUND_MB, held: peakHwm !== null && peakHwm < RSS_BOUND_MB, stored: rows.n, dead: rows.dead, largestStoredBytes: rows.largest, bursts },
            log: queuebox.logFile,
          };
        } finally {
          await queuebox?.stop();
          await sql.end();
        }
      });
    });
  } finally {
    await scratch.drop();
    await rabbit?.close();
    await nats?.close();
  }
}

export async function runBurst(options) {
  const ctx = await createContext(options);
  printRunStart('burst', ctx.conditions);
  const plan = Object.entries(SCENARIOS)
    .filter(([id]) => !options.only || options.only.split(',').includes(id))
    .map(([id, spec]) => [id, () => scenario(ctx, id, spec)]);
  let scenarios;
  try {
    scenarios = await runScenarios(plan, options);
  } finally {
    await ctx.close();
  }
  const result = { benchmark: 'burst', startedAt: ctx.startedAt, finishedAt: new Date().toISOString(), options: Object.fromEntries(Object.entries(ctx.options).filter(([k]) => k !== 'onlySet')), conditions: ctx.conditions, scenarios };
  section('burst benchmark: QueueBox RSS under bursts of large messages');
  const ok = scenarios.filter((s) => !s.error);
  console.log(
    table(
      ['id', 'scenario', 'idle RSS MB', 'peak RSS MB (sampled)', 'peak RSS MB (VmHWM)', `< ${RSS_BOUND_MB} MB`, 'stored', 'dead', 's per burst'],
      ok.map((s) => [s.id, s.title, s.figures.idleRssMb, s.figures.peakRssSampledMb, s.figures.peakRssHwmMb, s.figures.held ? 'yes' : 'NO', s.figures.stored, s.figures.dead, s.figures.bursts.map((b) => b.seconds).join(' / ')]),
    ),
  );
  for (const s of ok) console.log(`${s.id}: YAML:\n${toYaml(s.settings.yaml, 4)}\n  ${s.settings.note}`);
  for (const s of scenarios.filter((x) => x.error)) console.log(`\n${s.id} FAILED: ${s.error}`);
  saveResults('burst', result);
  return result;
}
