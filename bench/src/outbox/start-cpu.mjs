/**
 * The start of two or more builds, alternated round by round, by the CPU a process spends: from
 * its spawn to the first receipt (one row pending) and to `/health/ready` (utime + stime from
 * /proc), beside the wall time from spawn to the first receipt. CPU holds on a loaded machine
 * where wall times do not. `bare` stands for the bare runner (peers/start-runner.mjs). Linux only.
 *   node bench/src/outbox/start-cpu.mjs <rounds> base=/work/main/apps/queuebox/dist/main.js \
 *     branch=apps/queuebox/dist/main.js bare=bare
 * NODE_ARGS adds options to QueueBox's node (e.g. --cpu-prof).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { connect, createDatabase, dropDatabase, PG, jdbcUrl } from '../lib/pg.mjs';

const [roundsArg, ...specs] = process.argv.slice(2);
const rounds = Number(roundsArg);
const builds = specs.map((s) => s.split('='));
const extraArgs = (process.env.NODE_ARGS ?? '').split(' ').filter(Boolean);
const TICK = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
const cpuMs = (pid) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK;
  } catch {
    return NaN;
  }
};

let onReceipt = null;
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.end('ok');
    onReceipt?.();
  });
});
await new Promise((r) => sink.listen(0, '127.0.0.1', r));
const sinkPort = sink.address().port;
const httpPort = 18000 + (process.pid % 1000);
const db = await createDatabase('qb_startcmp');
const configFile = `/tmp/startcmp-${process.pid}.yml`;
writeFileSync(
  configFile,
  `server:\n  httpPort: ${httpPort}\ndestinations:\n  sink:\n    type: http\n    baseUrl: "http://127.0.0.1:${sinkPort}"\n    path: /in\nroutes:\n  - topicPattern: "**"\n    destination: sink\n`,
);
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('QUEUEBOX_'))),
  QUEUEBOX_CONFIG_FILE: configFile,
  QUEUEBOX_DATABASE_URL: jdbcUrl(db),
  QUEUEBOX_DATABASE_USERNAME: PG.user,
  QUEUEBOX_DATABASE_PASSWORD: PG.password,
};
const mig = spawnSync(process.execPath, [builds.find(([, m]) => m !== 'bare')[1], 'migrate'], { env, encoding: 'utf8' });
if (mig.status !== 0) throw new Error(mig.stderr + mig.stdout);
const sql = connect(db, { max: 1 });
const results = Object.fromEntries(builds.map(([n]) => [n, { wall: [], cpuReceipt: [], cpuReady: [] }]));

async function once(main) {
  await sql`insert into outbox (topic, payload) values ('bench.start', '{"a":1}'::jsonb)`;
  const t0 = performance.now();
  const bare = main === 'bare';
  const args = bare
    ? [new URL('../peers/start-runner.mjs', import.meta.url).pathname, JSON.stringify({ connection: `postgres://${PG.user}:${PG.password}@${PG.host}:${PG.port}/${db}`, sinkUrl: `http://127.0.0.1:${sinkPort}/in` })]
    : [...extraArgs, main];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  let receipt;
  const got = new Promise((r) => {
    onReceipt = () => {
      onReceipt = null;
      receipt = { wall: performance.now() - t0, cpu: cpuMs(child.pid) };
      r();
    };
  });
  let ready = NaN;
  for (; !bare; ) {
    try {
      const res = await fetch(`http://127.0.0.1:${httpPort}/health/ready`);
      await res.arrayBuffer();
      if (res.status === 200) {
        ready = cpuMs(child.pid);
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await got;
  const exited = new Promise((r) => child.once('exit', r));
  if (!bare) child.kill('SIGTERM');
  await exited;
  return { ...receipt, ready };
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const load0 = loadavg();
for (let i = 0; i < rounds; i++) {
  const order = i % 2 === 0 ? builds : [...builds].reverse();
  for (const [name, main] of order) {
    const r = await once(main);
    results[name].wall.push(Math.round(r.wall));
    results[name].cpuReceipt.push(r.cpu);
    results[name].cpuReady.push(r.ready);
  }
}
const load1 = loadavg();
await sql.end();
sink.close();
await dropDatabase(db);
for (const [name, r] of Object.entries(results)) {
  console.log(
    `${name}: spawn→receipt median ${median(r.wall)} ms [${r.wall.join(' ')}]; CPU at receipt median ${median(r.cpuReceipt)} ms [${r.cpuReceipt.join(' ')}]; CPU at ready median ${median(r.cpuReady)} ms`,
  );
}
console.log(`load ${load0.map((x) => x.toFixed(2)).join(' ')} → ${load1.map((x) => x.toFixed(2)).join(' ')}; ${cpus().length} cores`);
