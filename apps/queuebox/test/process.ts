import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@queuebox/testing';

/** Runs the BUILT service (`dist/main.js`) as a real process, the way an operator does. */
export const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(MAIN))
    throw new Error(`${MAIN} is missing: run \`pnpm build\` before the process tests.`);
}

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface QueueBoxProcess {
  readonly child: ChildProcess;
  output(): string;
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<ProcessResult>;
}

export function startQueueBox(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string; main?: string } = {},
): QueueBoxProcess {
  const child = spawn(process.execPath, [options.main ?? MAIN, ...args], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if ((stdout + stderr).includes(waiter.text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    check();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    check();
  });
  const exited = new Promise<ProcessResult>((resolve) => {
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
  return {
    child,
    output: () => stdout + stderr,
    exited,
    waitFor(text, timeoutMs = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`'${text}' did not appear in ${timeoutMs} ms. Output:\n${stdout}${stderr}`),
            ),
          timeoutMs,
        );
        waiters.push({
          text,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
        check();
        void exited.then(() => {
          clearTimeout(timer);
          if (!(stdout + stderr).includes(text))
            reject(new Error(`The process exited before '${text}'. Output:\n${stdout}${stderr}`));
        });
      });
    },
  };
}

export function runQueueBox(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string } = {},
): Promise<ProcessResult> {
  return startQueueBox(args, env, options).exited;
}

/**
 * Sends SIGTERM and waits for the exit, measuring how long it took; past `killAfterMs` the
 * process gets SIGKILL (its exit code is then null, which fails any test expecting 0).
 */
export async function terminateQueueBox(
  qb: QueueBoxProcess,
  killAfterMs: number,
): Promise<ProcessResult & { readonly elapsed: number }> {
  const started = performance.now();
  qb.child.kill('SIGTERM');
  const killer = setTimeout(() => qb.child.kill('SIGKILL'), killAfterMs);
  const result = await qb.exited;
  clearTimeout(killer);
  return { ...result, elapsed: performance.now() - started };
}

export function writeConfig(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-config-'));
  const file = join(dir, 'queuebox.yml');
  writeFileSync(file, yaml);
  return file;
}

/**
 * The variables that start QueueBox on a test database with `yaml` as its file. The local server
 * trusts the user, so the password is a placeholder unless a test needs one it can look for.
 */
export function databaseEnv(
  database: { readonly jdbcUrl: string; readonly user: string },
  yaml: string,
  password = 'unused-by-trust-auth',
): Record<string, string> {
  return {
    QUEUEBOX_CONFIG_FILE: writeConfig(yaml),
    QUEUEBOX_DATABASE_URL: database.jdbcUrl,
    QUEUEBOX_DATABASE_USERNAME: database.user,
    QUEUEBOX_DATABASE_PASSWORD: password,
  };
}

/**
 * Serves `yaml` against a test database on a free data port, once the process says it is
 * listening; the process is added to `running`, so the file's afterAll can kill what a failed
 * test left behind.
 */
export async function serveQueueBox(
  database: { readonly jdbcUrl: string; readonly user: string },
  yaml: string,
  running: QueueBoxProcess[],
): Promise<{ qb: QueueBoxProcess; base: string }> {
  const port = await freePort();
  const qb = startQueueBox([], {
    ...databaseEnv(database, yaml),
    QUEUEBOX_SERVER_HTTPPORT: String(port),
  });
  running.push(qb);
  await qb.waitFor('is listening on port', 30_000);
  return { qb, base: `http://127.0.0.1:${port}` };
}
