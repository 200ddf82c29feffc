import { readFileSync } from 'node:fs';

/**
 * How long a thread waited for a CPU, from Linux's `/proc/<pid>/schedstat` (its second field,
 * ns): the time the process could not run however much it wanted to. A rate test bounds what
 * it demands from below by the time left after these waits, so a loaded machine makes the
 * bound looser instead of failing it. Null where the file is missing (not Linux).
 */
export function runQueueWaitMs(pid: number | 'thread-self'): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/);
    const waitNs = Number(fields[1]);
    return Number.isFinite(waitNs) ? waitNs / 1e6 : null;
  } catch {
    return null;
  }
}

export interface WaitSample {
  readonly atMs: number;
  readonly waitMs: number;
}

/**
 * Samples the summed run-queue wait of `pids` every `everyMs` until `stop()`; `thread-self` is
 * the thread that runs the test (a vitest worker may not be the process's main thread).
 */
export function sampleRunQueueWait(pids: readonly (number | 'thread-self')[], everyMs = 50) {
  const samples: WaitSample[] = [];
  const take = (): void => {
    let waitMs = 0;
    for (const pid of pids) waitMs += runQueueWaitMs(pid) ?? 0;
    samples.push({ atMs: performance.now(), waitMs });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    stop: (): void => {
      clearInterval(timer);
      take();
    },
    /**
     * The wait within [fromMs, toMs], taken wide: from the last sample at or before `fromMs` to
     * the first at or after `toMs`, so it is never less than the true wait.
     */
    waitedWithin(fromMs: number, toMs: number): number {
      const before = samples.filter((s) => s.atMs <= fromMs).at(-1) ?? samples[0]!;
      const after = samples.find((s) => s.atMs >= toMs) ?? samples.at(-1)!;
      return after.waitMs - before.waitMs;
    },
  };
}
