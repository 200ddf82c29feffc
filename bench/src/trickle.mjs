/**
 * The trickle of the latency scenarios, a small process of its own so that nothing else
 * (samplers, garbage collection of the bench process's large heap) delays the moment it notes a
 * commit. One at a time, at a fixed rate, one of:
 * - `outbox`: one row per INSERT into QueueBox's outbox (auto-commit, one connection);
 * - `graphile`: one `graphile_worker.add_job` per statement (auto-commit, one connection);
 * - `webhook`: one POST to a QueueBox HTTP source, whose 202 comes after the inbox commit.
 * For each it records when the statement (or the 202) returned, the commit being done by then,
 * and for the SQL kinds the database's clock_timestamp() during the statement as a cross-check.
 * IPC: {cmd:'warmup', n} and {cmd:'run', rate, seconds} in, results out.
 */
import postgres from 'postgres';
import { makePayloads } from './lib/payload.mjs';

const options = JSON.parse(process.argv[2]);
const kind = options.kind ?? 'outbox';
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sql =
  kind === 'webhook'
    ? null
    : postgres({ ...options.pg, database: options.database, max: 1, onnotice: () => undefined });
const payloads = makePayloads(options.bodyBytes);
const run = `${process.pid}-${Date.now()}`;

async function insert(seq) {
  if (kind === 'graphile') {
    const [row] = await sql`select (graphile_worker.add_job('post', ${payloads.text(seq, null)}::text::json)).id::text as id,
      (extract(epoch from clock_timestamp()) * 1000)::float8 as db_ms`;
    return row;
  }
  if (kind === 'webhook') {
    const response = await fetch(options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: `${run}-${seq}`, type: 'bench.event', seq }),
    });
    const body = await response.json();
    if (response.status !== 202) throw new Error(`the webhook answered ${response.status}`);
    return { id: body.messageId, db_ms: now() };
  }
  const [row] = await sql`insert into outbox (topic, key, payload)
    values ('bench.event', null, ${payloads.text(seq, null)}::text::jsonb)
    returning id::text as id, (extract(epoch from clock_timestamp()) * 1000)::float8 as db_ms`;
  return row;
}

process.on('message', async (message) => {
  if (message.cmd === 'warmup') {
    for (let i = 0; i < message.n; i += 1) {
      await insert(i);
      await sleep(5);
    }
    process.send({ done: true });
  } else if (message.cmd === 'run') {
    const total = Math.round(message.rate * message.seconds);
    const interval = 1000 / message.rate;
    const ids = new Array(total);
    const committed = new Array(total);
    const dbTimes = new Array(total);
    const tStart = now() + 20;
    for (let i = 0; i < total; i += 1) {
      const wait = tStart + i * interval - now();
      if (wait > 1) await sleep(wait);
      const row = await insert(1_000 + i);
      committed[i] = now();
      ids[i] = row.id;
      dbTimes[i] = row.db_ms;
    }
    process.send({ ids, committed, dbTimes, tStart, tEnd: now() });
  } else if (message.cmd === 'stop') {
    await sql?.end();
    process.exit(0);
  }
});
process.send({ ready: true });
