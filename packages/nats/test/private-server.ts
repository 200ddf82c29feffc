/**
 * A nats-server of a test's own, for what the shared server cannot show: user/password and token
 * authorization. Core NATS only (no JetStream, no storage), on a free port, stopped by the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort, portOpen } from '@queuebox/testing';

const BINARY = '/usr/sbin/nats-server';

export interface PrivateServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** False when this machine has no nats-server binary. */
export function privateServerAvailable(): boolean {
  return existsSync(BINARY);
}

export async function startPrivateServer(auth: readonly string[]): Promise<PrivateServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(BINARY, ['-a', '127.0.0.1', '-p', String(port), ...auth], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100 && !(await portOpen('127.0.0.1', port, 200)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
