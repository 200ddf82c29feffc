/**
 * The soak's QueueBox replicas: each one the built app (apps/queuebox/dist/main.js) with a YAML
 * file of its own (its port; everything else shared), started without any inherited QUEUEBOX_*
 * variable, its output in a log file. A replica can be killed (SIGKILL), stopped (SIGTERM) and
 * started again; every process it ran is remembered with its peak RSS (VmHWM of
 * /proc/<pid>/status, read every second and once more right before a signal).
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toYaml } from '../lib/queuebox.mjs';
import { QUEUEBOX_MAIN, REPO_DIR, sleep, waitFor } from '../lib/util.mjs';

function childEnv(configFile) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('QUEUEBOX_') || k === 'LOG_LEVEL' || k === 'LOG_FORMAT') continue;
    env[k] = v;
  }
  env.QUEUEBOX_CONFIG_FILE = configFile;
  return env;
}

/** Peak resident set (VmHWM) in MB, or null once the process is gone. */
export function peakRssMb(pid) {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export function writeReplicaConfig(dir, name, config) {
  const file = join(dir, `${name}.yml`);
  writeFileSync(file, `${toYaml(config)}\n`);
  return file;
}

export function migrate(configFile) {
  const result = spawnSync(process.execPath, [QUEUEBOX_MAIN, 'migrate'], {
    cwd: REPO_DIR,
    env: childEnv(configFile),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0)
    throw new Error(`queuebox migrate failed (${result.status}): ${result.stderr || result.stdout}`);
}

export class Replica {
  constructor({ name, configFile, httpPort, logDir }) {
    this.name = name;
    this.configFile = configFile;
    this.httpPort = httpPort;
    this.base = `http://127.0.0.1:${httpPort}`;
    this.logDir = logDir;
    /** Every process this replica ran: { pid, peakRssMb, exit, how }. */
    this.runs = [];
    this.current = null;
  }

  async start() {
    const run = { pid: 0, peakRssMb: 0, exit: null, how: 'running', child: null, exited: null };
    const logFile = join(this.logDir, `${this.name}-${this.runs.length + 1}.log`);
    const fd = openSync(logFile, 'w');
    const child = spawn(process.execPath, [QUEUEBOX_MAIN], {
      cwd: REPO_DIR,
      env: childEnv(this.configFile),
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    run.pid = child.pid;
    run.logFile = logFile;
    run.child = child;
    run.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        run.exit = { code, signal };
        resolve(run.exit);
      }),
    );
    run.sampler = setInterval(() => this.sample(run), 1000);
    this.runs.push(run);
    this.current = run;
    await waitFor(
      async () => {
        if (run.exit) throw new Error(`${this.name} exited during its start; see ${logFile}`);
        try {
          const response = await fetch(`${this.base}/health/ready`);
          await response.arrayBuffer();
          return response.status === 200;
        } catch {
          return false;
        }
      },
      { timeoutMs: 90_000, everyMs: 100, what: `${this.name} /health/ready` },
    );
    return run;
  }

  sample(run) {
    const mb = peakRssMb(run.pid);
    if (mb !== null && mb > run.peakRssMb) run.peakRssMb = mb;
  }

  /** Sends `signal` to the running process and waits for its exit (SIGKILL after 60 s). */
  async signal(signal) {
    const run = this.current;
    if (run === null || run.exit) return run?.exit ?? null;
    this.sample(run);
    clearInterval(run.sampler);
    run.how = signal;
    run.child.kill(signal);
    const exit = await Promise.race([run.exited, sleep(60_000).then(() => null)]);
    if (exit === null) {
      run.how = `${signal}, then SIGKILL after 60 s`;
      run.child.kill('SIGKILL');
      await run.exited;
    }
    this.current = null;
    return run.exit;
  }

  figures() {
    return this.runs.map((run) => ({
      replica: this.name,
      pid: run.pid,
      ended: run.how,
      exit: run.exit,
      peakRssMb: Math.round(run.peakRssMb * 10) / 10,
    }));
  }
}
