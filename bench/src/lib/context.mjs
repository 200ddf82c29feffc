/** What every benchmark run shares: conditions, the sink process, the CPU sampler, payloads. */
import { machineBusyPercent, startCpuSampler } from './cpu-sampler.mjs';
import { acquireLock } from './lock.mjs';
import { log } from './util.mjs';
import { loadAverage, machineConditions } from './machine.mjs';
import { makePayloads } from './payload.mjs';
import { startSink } from './sink-client.mjs';

export async function createContext(options) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const conditions = {
    machine: await machineConditions(),
    loadBefore: loadAverage(),
    loadAfter: null,
  };
  const sink = await startSink();
  let backendSource = () => new Set();
  const cpu = startCpuSampler({ dbBackendPids: () => backendSource() });
  cpu.setRole(sink.pid, 'sink');
  return {
    options,
    stamp,
    startedAt: new Date().toISOString(),
    conditions,
    sink,
    cpu,
    payloads: makePayloads(options['body-bytes']),
    setBackendSource(source) {
      backendSource = source;
    },
    async close() {
      conditions.loadAfter = loadAverage();
      cpu.stop();
      await sink.close();
    },
  };
}

/** How every scenario loads its backlog: the load batch, the payloads, ANALYZE unless told not to. */
export function loadSettings(ctx) {
  return {
    batch: ctx.options['load-batch'],
    payloads: ctx.payloads,
    analyze: !ctx.options['no-analyze'],
  };
}

/**
 * Colleagues share this machine: before a scenario, wait (up to `maxSeconds`) until the machine
 * is quiet — under 25 % of all cores busy over 2 s — and record what it was.
 */
export async function waitQuiet(maxSeconds) {
  const deadline = Date.now() + maxSeconds * 1000;
  let busy = await machineBusyPercent(2000);
  let waited = 2;
  while (busy >= 25 && Date.now() < deadline) {
    log(`  machine busy ${busy}% (others' work); waiting for it to calm down`);
    busy = await machineBusyPercent(3000);
    waited += 3;
  }
  return { machineBusyPercentBefore: busy, waitedSeconds: waited, quiet: busy < 25 };
}

/**
 * Runs the scenario functions in order; a failing scenario is recorded and the run goes on. With
 * `--lock FILE` each scenario runs under an exclusive lock on FILE (lib/lock.mjs); one hold
 * spans scenarios until it has lasted `--lock-hold` seconds, then it is released before the next
 * scenario so that others' builds get in (a scenario itself is never split).
 */
export async function runScenarios(plan, options) {
  const results = [];
  let lock = null;
  const releaseLock = () => {
    if (!lock) return;
    const { heldSeconds } = lock.release();
    log(`  released the exclusive lock on ${options.lock} after ${heldSeconds} s`);
    lock = null;
  };
  try {
    for (const [id, fn] of plan) {
      if (lock && lock.heldMs() >= options['lock-hold'] * 1000) releaseLock();
      if (options.lock && !lock) {
        lock = await acquireLock(options.lock);
        log(`  took the exclusive lock on ${options.lock} (waited ${Math.round(lock.waitedMs / 1000)} s)`);
      }
      try {
        const quiet = options['quiet-wait'] > 0 ? await waitQuiet(options['quiet-wait']) : null;
        const result = await fn();
        result.quietCheck = quiet;
        if (lock) result.lock = { file: options.lock, waitedMs: lock.waitedMs };
        results.push(result);
      } catch (error) {
        const text = String(error.stack ?? error.message);
        console.error(`${id} failed: ${text.length > 1500 ? `${text.slice(0, 1500)}…` : text}`);
        results.push({ id, error: String(error.message).slice(0, 500) });
      }
    }
  } finally {
    releaseLock();
  }
  return results;
}
