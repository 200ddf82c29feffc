/**
 * `--lock FILE`: an exclusive flock(1) on FILE around the scenarios (at most `--lock-hold` s a
 * hold, released between scenarios) instead of around the whole run. The machine is shared and a full `pnpm bench outbox` takes longer than one exclusive hold
 * should (others' builds wait for it); taking the lock per scenario keeps every measurement
 * quiet and lets a build in between scenarios, while the run keeps its one sink process. Do not
 * also wrap the run in `flock -x FILE`: the inner request would wait for the outer hold forever.
 *
 * The lock is held by a child `flock -x FILE -c 'echo locked; exec cat'`: closing its stdin ends
 * `cat` and so the hold; if the bench dies the pipe closes and the lock goes with it.
 */
import { spawn } from 'node:child_process';
import { log, now, round } from './util.mjs';

export async function acquireLock(file) {
  const t0 = now();
  const child = spawn('flock', ['-x', file, '-c', 'echo locked; exec cat'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = setInterval(
    () => log(`  waiting for the exclusive lock on ${file} (${round((now() - t0) / 1000, 0)} s)`),
    30_000,
  );
  try {
    await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('locked')) resolve();
      });
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`flock ${file} exited with ${code}`)));
    });
  } finally {
    clearInterval(waiting);
  }
  const waitedMs = round(now() - t0, 0);
  const heldFrom = now();
  return {
    waitedMs,
    heldMs: () => now() - heldFrom,
    release() {
      child.stdin.end();
      return { heldSeconds: round((now() - heldFrom) / 1000, 1) };
    },
  };
}
