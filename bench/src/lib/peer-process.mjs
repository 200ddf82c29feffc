import { fork } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESULTS_DIR, now, sleep } from './util.mjs';

function forkRunner(script, label, options, env, execPath) {
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
      // Another Node.js for a peer that needs one; IPC is JSON either way.
      ...(execPath ? { execPath } : {}),
    },
  );
  closeSync(fd);
  const exit = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exit, logFile, startedAt };
}

/**
 * Forks a peer runner (peers/<name>.mjs) and resolves when it reports ready. `startedAt` is the
 * moment of the fork, the start of every "from start" figure. `onMessage` gets the runner's
 * later messages (listening from the fork on, so none sent right after ready is missed).
 */
export async function startPeer(script, label, options, env = {}, { execPath, onMessage } = {}) {
  const { child, exit, logFile, startedAt } = forkRunner(script, label, options, env, execPath);
  if (onMessage) child.on('message', (m) => (m.ready ? undefined : onMessage(m)));
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

/**
 * Runs a runner to completion for a preparing step (migrations, loading jobs through the peer's
 * own API): resolves with the runner's `{done}` message, rejects when it exits without one.
 */
export async function runPeerStep(script, label, options, { execPath, timeoutMs = 300_000 } = {}) {
  const { child, exit, logFile } = forkRunner(script, label, options, {}, execPath);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    return await new Promise((resolve, reject) => {
      child.on('message', (m) => {
        if (m.done) resolve(m.done);
        else if (m.error) reject(new Error(`${script}: ${m.error}; see ${logFile}`));
      });
      exit.then((e) =>
        reject(new Error(`${script} exited without finishing ${JSON.stringify(e)}; see ${logFile}`)),
      );
    });
  } finally {
    clearTimeout(timer);
    await Promise.race([exit, sleep(10_000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
