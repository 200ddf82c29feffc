/**
 * The trickle inserter of outbox scenario (c), a small process of its own so that nothing else
 * (samplers, garbage collection of the bench process's large heap) delays the moment it notes a
 * commit. One connection, one row per INSERT (auto-commit). For each row it records the time
 * the INSERT returned (the commit is done by then) and, as a cross-check, the database's
 * clock_timestamp() during the statement (a little before the commit). IPC: {cmd:'warmup', n} and
 * {cmd:'run', rate, seconds} in, results out.
 */
import postgres from 'postgres';
import { makePayloads } from './lib/payload.mjs';

const options = JSON.parse(process.argv[2]);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sql = postgres({
  ...options.pg,
  database: options.database,
  max: 1,
  onnotice: () => undefined,
});
const payloads = makePayloads(options.bodyBytes);

async function insert(seq) {
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
    await sql.end();
    process.exit(0);
  }
});
process.send({ ready: true });
