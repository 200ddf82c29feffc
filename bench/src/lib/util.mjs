import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One port handed out once per process, the same helper the tests use. */
export { freePort } from '@queuebox/dev';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const REPO_DIR = resolve(BENCH_DIR, '..');
export const RESULTS_DIR = resolve(BENCH_DIR, 'results');
/** The QueueBox build under test; QUEUEBOX_BENCH_MAIN names another tree's, for an A/B in turns. */
export const QUEUEBOX_MAIN = process.env.QUEUEBOX_BENCH_MAIN ?? resolve(REPO_DIR, 'apps/queuebox/dist/main.js');

/** Wall clock in ms with sub-ms resolution; the same clock in every process of the machine. */
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Poll `check` every `everyMs` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor(check, { timeoutMs, everyMs = 200, what = 'condition' }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export const round = (x, digits = 1) =>
  x === null || x === undefined || Number.isNaN(x) ? null : Number(x.toFixed(digits));

export function log(...parts) {
  const t = new Date().toISOString().slice(11, 19);
  console.log(`[${t}]`, ...parts);
}

/** Runs the cleanups last-registered first, each whatever the others did, logging failures. */
export async function runCleanups(cleanups) {
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      log(`cleanup: ${error.message}`);
    }
  }
}

/** a / b to two places, or null when either is missing or zero. */
export const ratio = (a, b) => (a && b ? round(a / b, 2) : null);
