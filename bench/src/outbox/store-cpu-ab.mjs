/**
 * CPU per message of the outbox's claim-and-complete path, two builds side by side in one
 * process: each build's `createPostgresOutboxStore` (from its packages/postgres/dist) on a pool of
 * one connection, over one table of `--rows` pending rows of about 1 KiB. Each round claims
 * `--batch` rows and completes them `sent`, the two builds in turn (the order flips every round),
 * so the machine's load falls on both alike. Printed per build: this process's CPU
 * (`process.cpuUsage` around the claim and the completion: postgres.js and the store's own work)
 * and the connection's PostgreSQL backend CPU (/proc, 10 ms ticks), per message.
 *
 *   node bench/src/outbox/store-cpu-ab.mjs --base /work/main [--head .] [--rows 70000]
 *        [--batch 100] [--rounds 300]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { connect as connectTo } from '../lib/pg.mjs';
import { migrate, writeConfig } from '../lib/queuebox.mjs';
import { REPO_DIR } from '../lib/util.mjs';
import { DEFAULT_TABLES } from './explain.mjs';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string', default: REPO_DIR },
    rows: { type: 'string', default: '70000' },
    batch: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '300' },
  },
});
if (!values.base) throw new Error('--base <repository with a build> is required');
const batch = Number(values.batch);
const rounds = Math.min(Number(values.rounds), Math.floor(Number(values.rows) / batch / 2) - 5);
const WARM_UP = 5;

const database = `qb_store_ab_${process.pid}`;
const admin = connectTo('postgres', { max: 1 });
await admin.unsafe(`CREATE DATABASE ${database}`);
const pools = [];
try {
  migrate(database, writeConfig('store-cpu-ab', { outbox: {} }), join(resolve(values.head), 'apps/queuebox/dist/main.js'));
  const connect = () => {
    const sql = connectTo(database, { max: 1 });
    pools.push(sql);
    return sql;
  };
  const loader = connect();
  await loader.unsafe(
    `INSERT INTO outbox (topic, key, payload)
     SELECT 'bench', NULL, jsonb_build_object('seq', i, 'pad', repeat('x', 1000))
     FROM generate_series(1, ${Number(values.rows)}) AS i`,
  );
  await loader.unsafe('ANALYZE outbox');

  const clock = { now: () => new Date() };
  const ticks = (pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  const sides = [];
  for (const [name, root] of [['base', values.base], ['head', values.head]]) {
    const module = await import(pathToFileURL(resolve(root, 'packages/postgres/dist/outbox/outbox-store.js')).href);
    const sql = connect();
    const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`;
    const store = module.createPostgresOutboxStore(sql, DEFAULT_TABLES, clock);
    sides.push({ name, root, pid, store, user: 0, system: 0, backendMs: 0, messages: 0 });
  }
  for (let round = 0; round < rounds + WARM_UP; round += 1) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const before = process.cpuUsage();
      const ticksBefore = ticks(side.pid);
      const claimed = await side.store.claim(batch, 60_000);
      await side.store.complete(
        claimed.map((m) => ({ kind: 'sent', fence: { id: m.id, claimToken: m.claimToken } })),
      );
      const used = process.cpuUsage(before);
      if (round < WARM_UP) continue;
      side.user += used.user / 1000;
      side.system += used.system / 1000;
      side.backendMs += (ticks(side.pid) - ticksBefore) * 10;
      side.messages += claimed.length;
    }
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`${rounds} rounds of ${batch} rows per build, ${values.rows} pending rows, load ${load}`);
  for (const s of sides) {
    const per = (ms) => ((ms / s.messages) * 1000).toFixed(1);
    console.log(
      `${s.name} (${s.root}): client ${per(s.user + s.system)} µs/msg (user ${per(s.user)}), backend ${per(s.backendMs)} µs/msg, ${s.messages} messages`,
    );
  }
} finally {
  await Promise.all(pools.map((sql) => sql.end()));
  await admin.unsafe(`DROP DATABASE ${database}`);
  await admin.end();
}
