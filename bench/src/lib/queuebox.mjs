/**
 * Runs the built QueueBox (`apps/queuebox/dist/main.js`): writes the YAML file that
 * QUEUEBOX_CONFIG_FILE names, migrates with `main.js migrate`, starts the service, waits for
 * /health/ready, scrapes /metrics, and stops it with SIGTERM. The child gets the parent's
 * environment WITHOUT any QUEUEBOX_*, LOG_LEVEL or LOG_FORMAT variable, so only what is printed
 * here differs from QueueBox's defaults.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync, writeFileSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { distFingerprint } from './machine.mjs';
import { PG, jdbcUrl } from './pg.mjs';
import { QUEUEBOX_MAIN, RESULTS_DIR, REPO_DIR, now, sleep, waitFor } from './util.mjs';

/** A small YAML writer for maps, lists and scalars (strings are JSON-quoted, valid YAML). */
export function toYaml(value, indent = 0) {
  const pad = ' '.repeat(indent);
  // A scalar item of a list (a source's `topics`).
  if (value === null || typeof value !== 'object') {
    return `${pad}${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  }
  if (Array.isArray(value)) {
    return value
      .map((item) => {
        const inner = toYaml(item, indent + 2).trimStart();
        return `${pad}- ${inner}`;
      })
      .join('\n');
  }
  return Object.entries(value)
    .map(([k, v]) => {
      if (v !== null && typeof v === 'object') return `${pad}${k}:\n${toYaml(v, indent + 2)}`;
      return `${pad}${k}: ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`;
    })
    .join('\n');
}

function childEnv(database, configFile, extraEnv = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('QUEUEBOX_') || k === 'LOG_LEVEL' || k === 'LOG_FORMAT') continue;
    env[k] = v;
  }
  env.QUEUEBOX_CONFIG_FILE = configFile;
  env.QUEUEBOX_DATABASE_URL = jdbcUrl(database);
  env.QUEUEBOX_DATABASE_USERNAME = PG.user;
  env.QUEUEBOX_DATABASE_PASSWORD = PG.password;
  return { ...env, ...extraEnv };
}

/** What the run sets, for the printout and the JSON (the password masked). */
export function describeSettings(database, config, configFile) {
  return {
    env: {
      QUEUEBOX_CONFIG_FILE: configFile,
      QUEUEBOX_DATABASE_URL: jdbcUrl(database),
      QUEUEBOX_DATABASE_USERNAME: PG.user,
      QUEUEBOX_DATABASE_PASSWORD: '***',
    },
    yaml: config,
  };
}

export function writeConfig(label, config) {
  const dir = join(RESULTS_DIR, 'tmp');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${label}-${process.pid}.yml`);
  writeFileSync(file, `${toYaml(config)}\n`);
  return file;
}

/** `main`: the build that migrates (another tree's, for an A/B of two builds). */
export function migrate(database, configFile, main = QUEUEBOX_MAIN) {
  const result = spawnSync(process.execPath, [main, 'migrate'], {
    cwd: REPO_DIR,
    env: childEnv(database, configFile),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0) {
    throw new Error(
      `queuebox migrate failed (${result.status}): ${result.stderr || result.stdout}`,
    );
  }
}

/**
 * Starts QueueBox; resolves once /health/ready answers 200. `nodeArgs` go before main.js
 * (e.g. --cpu-prof); `execPath` is the Node.js that runs it (the bench's own by default). The log goes to bench/results/logs/<label>.log.
 */
export async function startQueueBox({
  label,
  database,
  configFile,
  httpPort,
  nodeArgs = [],
  extraEnv = {},
  execPath = process.execPath,
}) {
  const logDir = join(RESULTS_DIR, 'logs');
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${label}.log`);
  const fd = openSync(logFile, 'w');
  const dist = distFingerprint();
  const startedAt = now();
  const child = spawn(execPath, [...nodeArgs, QUEUEBOX_MAIN], {
    cwd: REPO_DIR,
    env: childEnv(database, configFile, extraEnv),
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  let exited = null;
  const exitPromise = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    }),
  );
  const base = `http://127.0.0.1:${httpPort}`;
  const readyAt = await waitFor(
    async () => {
      if (exited)
        throw new Error(`QueueBox exited during start (${JSON.stringify(exited)}); see ${logFile}`);
      try {
        const response = await fetch(`${base}/health/ready`);
        await response.arrayBuffer();
        return response.status === 200 ? now() : null;
      } catch {
        return null;
      }
    },
    { timeoutMs: 60_000, everyMs: 50, what: 'QueueBox /health/ready' },
  );
  return {
    pid: child.pid,
    base,
    logFile,
    dist,
    startedAt,
    readyAt,
    async metrics() {
      try {
        const response = await fetch(`${base}/metrics`);
        return await response.text();
      } catch (error) {
        return `# metrics unavailable: ${error.message}`;
      }
    },
    async stop() {
      if (exited) return exited;
      child.kill('SIGTERM');
      const result = await Promise.race([exitPromise, sleep(40_000).then(() => null)]);
      if (result === null) {
        child.kill('SIGKILL');
        return await exitPromise;
      }
      return result;
    },
  };
}

/** Picks the samples of the named metric families out of a Prometheus text scrape. */
export function pickMetrics(text, prefixes) {
  const picked = {};
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const space = line.lastIndexOf(' ');
    const name = line.slice(0, space);
    if (prefixes.some((p) => name.startsWith(p))) picked[name] = Number(line.slice(space + 1));
  }
  return picked;
}
