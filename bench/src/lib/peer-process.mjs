import { fork } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESULTS_DIR, now, sleep } from './util.mjs';

/** Forks a peer runner (peers/<name>.mjs) and resolves when it reports ready. */
export async function startPeer(script, label, options, env = {}) {
  const logDir = join(RESULTS_DIR, 'logs');
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${label}.log`);
  const fd = openSync(logFile, 'w');
  const startedAt = now();
  const child = fork(
    fileURLToPath(new URL(`../peers/${script}`, import.meta.url)),
    [JSON.stringify(options)],
    {
      stdio: ['ignore', fd, fd, 'ipc'],
      env: { ...process.env, ...env },
    },
  );
  closeSync(fd);
  const exit = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise((resolve, reject) => {
    child.once('message', (m) => (m.ready ? resolve() : reject(new Error('unexpected message'))));
    exit.then((e) =>
      reject(new Error(`${script} exited during start ${JSON.stringify(e)}; see ${logFile}`)),
    );
  });
  return {
    pid: child.pid,
    logFile,
    startedAt,
    readyAt: now(),
    async stop() {
      if (child.exitCode !== null) return;
      child.send('stop');
      const done = await Promise.race([exit, sleep(20_000).then(() => null)]);
      if (done === null) child.kill('SIGKILL');
    },
  };
}
