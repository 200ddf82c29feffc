import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SINK = fileURLToPath(new URL('../sink.mjs', import.meta.url));

/** Starts the sink process and returns its address, pid and an IPC call function. */
export async function startSink() {
  const child = fork(SINK, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map();
  let nextId = 1;
  const port = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`sink exited early with ${code}`)));
    child.on('message', (message) => {
      if (message.ready) {
        resolve(message.port);
        return;
      }
      const entry = pending.get(message.id);
      if (entry) {
        pending.delete(message.id);
        entry(message.result);
      }
    });
  });
  child.removeAllListeners('exit');
  const call = (cmd, args) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.send({ id, cmd, args });
    });
  return {
    pid: child.pid,
    port,
    url: `http://127.0.0.1:${port}`,
    path: '/sink',
    reset: (args) => call('reset', args),
    summary: () => call('summary'),
    times: (ids) => call('times', { ids }),
    async close() {
      await Promise.race([call('close'), new Promise((r) => setTimeout(r, 2000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
