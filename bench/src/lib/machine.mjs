/** The conditions every result carries: machine, load, PostgreSQL, Node, the code measured. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, totalmem } from 'node:os';
import { createRequire } from 'node:module';
import { connect } from './pg.mjs';
import { BENCH_DIR, QUEUEBOX_MAIN, REPO_DIR, round } from './util.mjs';

export function loadAverage() {
  const [one, five, fifteen] = readFileSync('/proc/loadavg', 'utf8').split(' ').map(Number);
  return { one, five, fifteen, at: new Date().toISOString() };
}

function cpuModel() {
  const line = readFileSync('/proc/cpuinfo', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('model name'));
  return line ? line.split(':')[1].trim() : (cpus()[0]?.model ?? 'unknown');
}

function git(args) {
  try {
    return execFileSync('git', args, { cwd: REPO_DIR, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

function packageVersion(name) {
  try {
    const require = createRequire(`${BENCH_DIR}/package.json`);
    return JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version;
  } catch {
    // graphile-worker's exports map hides package.json
    try {
      return JSON.parse(readFileSync(`${BENCH_DIR}/node_modules/${name}/package.json`, 'utf8'))
        .version;
    } catch {
      return null;
    }
  }
}

/**
 * A fingerprint of the built QueueBox (every .js in the dist folders of apps and packages: path,
 * size, mtime) and the newest build time. Colleagues rebuild the shared work tree; a changed
 * fingerprint between scenarios means they did not all measure the same code.
 */
export function distFingerprint() {
  const hash = createHash('sha1');
  let newest = 0;
  let files = 0;
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.js')) {
        const st = statSync(path);
        hash.update(`${path}:${st.size}:${st.mtimeMs}\n`);
        newest = Math.max(newest, st.mtimeMs);
        files += 1;
      }
    }
  };
  for (const group of ['apps', 'packages']) {
    for (const name of readdirSync(join(REPO_DIR, group)).sort())
      walk(join(REPO_DIR, group, name, 'dist'));
  }
  return {
    sha1: hash.digest('hex').slice(0, 12),
    files,
    newestBuild: new Date(newest).toISOString(),
  };
}

export async function machineConditions() {
  const sql = connect('postgres', { max: 1 });
  let postgres;
  try {
    const [row] = await sql`select version() as version,
      current_setting('shared_buffers') as shared_buffers,
      current_setting('synchronous_commit') as synchronous_commit,
      current_setting('max_connections') as max_connections,
      current_setting('shared_preload_libraries') as preload,
      current_setting('jit') as jit,
      current_setting('autovacuum') as autovacuum,
      current_setting('work_mem') as work_mem`;
    postgres = row;
  } finally {
    await sql.end();
  }
  const dirty = git([
    'status',
    '--porcelain',
    '--',
    '.',
    ':(exclude)bench',
    ':(exclude)docs/benchmarks.md',
  ]);
  return {
    nproc: Number(execFileSync('nproc', { encoding: 'utf8' }).trim()),
    cpuModel: cpuModel(),
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    postgres,
    queuebox: {
      main: QUEUEBOX_MAIN,
      distBuiltAt: statSync(QUEUEBOX_MAIN).mtime.toISOString(),
      dist: distFingerprint(),
      gitHead: git(['rev-parse', '--short', 'HEAD']),
      uncommittedOutsideBench: dirty ? dirty.split('\n') : [],
    },
    peers: {
      'graphile-worker': packageVersion('graphile-worker'),
      'graphile-worker-0.18': packageVersion('graphile-worker-0.18'),
      'pg-boss': packageVersion('pg-boss'),
      'pg-boss-12': packageVersion('pg-boss-12'),
      autocannon: packageVersion('autocannon'),
      undici: packageVersion('undici'),
      postgres: packageVersion('postgres'),
    },
  };
}

/**
 * A Node.js of the given major version on this machine other than the bench's own (the system's
 * `node` on PATH or in /usr/bin), as { path, version }, or null.
 */
export function nodeOfMajor(major) {
  const candidates = ['/usr/bin/node', '/usr/local/bin/node'];
  try {
    candidates.push(...execFileSync('which', ['-a', 'node'], { encoding: 'utf8' }).split('\n'));
  } catch {
    // `which` finds none: the fixed places are enough.
  }
  for (const path of candidates.filter((p) => p !== '' && p !== process.execPath)) {
    try {
      const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
      if (version.startsWith(`v${major}.`)) return { path, version };
    } catch {
      // Not there or not runnable.
    }
  }
  return null;
}
