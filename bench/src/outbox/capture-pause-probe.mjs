/**
 * EXPERIMENT (capture-cost): what a busy period costs capture after it ended, for the two ways
 * of pausing the feed. Run: `node bench/src/outbox/capture-pause-probe.mjs [seconds]`, with
 * QB_EXPERIMENT_CAPTURE_PAUSE=backpressure for the variant that stops reading instead of
 * closing. One fresh database, QueueBox with capture on, then:
 * 1. 16 clients commit single-row inserts for `seconds` (default 15) s;
 * 2. once QueueBox delivered them all, one row every 50 ms for 6 s (insert → receipt);
 * sampling every 100 ms: capture's slots (count, WAL from restart_lsn to the current position),
 * each walsender's CPU (from /proc), the time until the slot confirmed the WAL written.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { migrate, startQueueBox, writeConfig } from '../lib/queuebox.mjs';
import { freePort, log, now, percentile, round, sleep } from '../lib/util.mjs';
import { captureRunning, createPublication } from './latency.mjs';

const seconds = Number(process.argv[2] ?? 15);
const variant = process.env.QB_EXPERIMENT_CAPTURE_PAUSE ?? 'close';
const CLIENTS = 16;
const TICKS = (() => {
  try {
    return Number(readFileSync('/proc/self/stat', 'utf8') && 100);
  } catch {
    return 100;
  }
})();

const receipts = new Map();
const sink = createServer((req, res) => {
  const id = req.headers['x-message-id'];
  req.resume();
  req.on('end', () => {
    if (!receipts.has(id)) receipts.set(id, now());
    res.writeHead(200).end();
  });
});
await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
const sinkPort = sink.address().port;

function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return null;
  }
}

const result = await withDatabase('qb_probe', false, async (db) => {
  const httpPort = await freePort();
  const slot = `qb_probe_${process.pid}`;
  const config = {
    server: { httpPort },
    destinations: { sink: { type: 'http', baseUrl: `http://127.0.0.1:${sinkPort}`, path: '/sink' } },
    routes: [{ topicPattern: '**', destination: 'sink' }],
    outbox: {
      capture: {
        mode: 'postgres-logical',
        enabled: true,
        stateDirectory: '/var/lib/queuebox/capture',
        slot,
      },
    },
  };
  const configFile = writeConfig(`probe-${variant}`, config);
  migrate(db, configFile);
  await createPublication(db);
  const queuebox = await startQueueBox({ label: `probe-${variant}`, database: db, configFile, httpPort });
  const sql = connect(db, { max: CLIENTS });
  const watch = connect(db, { max: 1 });
  const samples = [];
  const walsenderCpu = new Map();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rows = await watch`
        SELECT s.slot_name, s.active_pid,
          pg_wal_lsn_diff(pg_current_wal_lsn(), s.restart_lsn)::bigint AS retained,
          pg_wal_lsn_diff(pg_current_wal_lsn(), s.confirmed_flush_lsn)::bigint AS unconfirmed
        FROM pg_replication_slots s WHERE s.slot_name LIKE ${`${slot}%`}`;
      for (const row of rows) {
        const cpu = row.active_pid ? cpuSeconds(row.active_pid) : null;
        if (cpu !== null) walsenderCpu.set(row.active_pid, cpu);
      }
      samples.push({
        t: now(),
        slots: rows.length,
        retained: rows.reduce((m, r) => Math.max(m, Number(r.retained)), 0),
        unconfirmed: rows.reduce((m, r) => Math.max(m, Number(r.unconfirmed)), 0),
      });
      await sleep(100);
    }
  })();
  try {
    await captureRunning(queuebox);
    await Promise.all(Array.from({ length: CLIENTS }, () => sql`select 1`));
    let commits = 0;
    const tStart = now();
    const until = tStart + seconds * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (now() < until) {
          await sql`INSERT INTO outbox (topic, payload) VALUES ('probe.load', ${JSON.stringify({ pad: 'x'.repeat(1000) })}::jsonb)`;
          commits += 1;
        }
      }),
    );
    const tEnd = now();
    const cpuAtLoadEnd = [...walsenderCpu.values()].reduce((a, b) => a + b, 0);
    while (receipts.size < commits) await sleep(20);
    const tDrained = now();
    const trickle = [];
    const trickleEnd = now() + 6_000;
    while (now() < trickleEnd) {
      const [row] = await sql`INSERT INTO outbox (topic, payload) VALUES ('probe.trickle', '{"n":1}'::jsonb) RETURNING id`;
      trickle.push({ id: row.id, at: now() });
      await sleep(50);
    }
    await sleep(1_500);
    sampling = false;
    await sampler;
    const cpuTotal = [...walsenderCpu.values()].reduce((a, b) => a + b, 0);
    const latency = (from, to) => {
      const v = trickle
        .filter((r) => r.at - tDrained >= from && r.at - tDrained < to && receipts.has(r.id))
        .map((r) => receipts.get(r.id) - r.at)
        .sort((a, b) => a - b);
      return { n: v.length, p50: round(percentile(v, 50), 1), p99: round(percentile(v, 99), 1), max: round(v.at(-1) ?? null, 1) };
    };
    const during = samples.filter((s) => s.t >= tStart && s.t <= tEnd);
    const after = samples.filter((s) => s.t > tEnd);
    const caughtUp = after.find((s) => s.slots > 0 && s.unconfirmed < 1024 * 1024);
    return {
      variant,
      seconds,
      commitsPerSecond: round(commits / ((tEnd - tStart) / 1000), 0),
      drainedAfterLoadMs: round(tDrained - tEnd, 0),
      slotsDuringLoad: { min: Math.min(...during.map((s) => s.slots)), max: Math.max(...during.map((s) => s.slots)) },
      maxRetainedMiB: round(Math.max(0, ...samples.map((s) => s.retained)) / 2 ** 20, 1),
      maxUnconfirmedAfterLoadMiB: round(Math.max(0, ...after.map((s) => s.unconfirmed)) / 2 ** 20, 1),
      caughtUpAfterLoadMs: caughtUp ? round(caughtUp.t - tEnd, 0) : null,
      walsenderCpuSeconds: { duringLoad: round(cpuAtLoadEnd, 2), afterLoad: round(cpuTotal - cpuAtLoadEnd, 2) },
      trickleMs: { first2s: latency(0, 2_000), next4s: latency(2_000, 6_000) },
      lost: trickle.filter((r) => !receipts.has(r.id)).length,
    };
  } finally {
    sampling = false;
    await sampler.catch(() => undefined);
    await sql.end({ timeout: 5 });
    await watch.end({ timeout: 5 });
    await queuebox.stop();
  }
});
sink.close();
log(JSON.stringify(result));
