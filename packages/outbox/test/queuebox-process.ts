import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FreshDatabase } from '@queuebox/testing';

/** The BUILT QueueBox service, run as an operator runs it, delivering what applications commit. */
const MAIN = fileURLToPath(new URL('../../../apps/queuebox/dist/main.js', import.meta.url));

export interface QueueBoxProcess {
  output(): string;
  stop(): Promise<void>;
}

export function startQueueBox(db: FreshDatabase, yaml: string, port: number): QueueBoxProcess {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`pnpm build\` first.`);
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-outbox-client-'));
  const config = join(dir, 'queuebox.yml');
  writeFileSync(config, yaml);
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      QUEUEBOX_CONFIG_FILE: config,
      QUEUEBOX_DATABASE_URL: db.jdbcUrl,
      QUEUEBOX_DATABASE_USERNAME: db.user,
      QUEUEBOX_DATABASE_PASSWORD: 'unused-by-trust-auth',
      QUEUEBOX_SERVER_HTTPPORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
