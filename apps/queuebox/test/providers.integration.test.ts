import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './process.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs a command to its end; its exit code and its stdout and stderr as they came. */
function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * The provider check on the production install that the container image copies: it passes on
 * the real install and fails, naming the provider and its package, when a provider is removed.
 */
describe('provider registry on the production install', () => {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-deploy-'));
  const target = join(dir, 'app');

  // A production install copies and links some 12,000 files: about 20 s of CPU, and on a
  // 2-core machine at load 30 past two minutes of wall time. Its duration proves nothing, so the
  // hook waits for its outcome, without blocking the test runner while it runs.
  beforeAll(async () => {
    assertBuilt();
    const deploy = await run(
      'pnpm',
      ['--filter', '@queuebox/app', 'deploy', '--legacy', '--prod', target],
      ROOT,
    );
    if (deploy.code !== 0) throw new Error(`pnpm deploy failed:\n${deploy.output}`);
  }, 900_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const check = () =>
    spawnSync(process.execPath, [join(target, 'dist/check-providers.js')], { encoding: 'utf8' });

  it('loads every provider from the production install', () => {
    const result = check();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      'All 7 provider(s) load: postgresql, postgres-logical, sqlserver, sqlserver-cdc, rabbitmq, nats, kafka.',
    );
  });

  // Each case removes one more package, so the later cases lack the earlier ones too; postgresql,
  // still installed, is never named.
  it.each([
    { kind: 'broker', pkg: 'rabbitmq', providers: ['rabbitmq'] },
    { kind: 'broker', pkg: 'nats', providers: ['nats'] },
    { kind: 'broker', pkg: 'kafka', providers: ['kafka'] },
    { kind: 'database', pkg: 'sqlserver', providers: ['sqlserver', 'sqlserver-cdc'] },
  ])(
    'fails naming the $kind and its package when @queuebox/$pkg is missing',
    ({ pkg, providers }) => {
      rmSync(join(target, `node_modules/@queuebox/${pkg}`), { recursive: true, force: true });
      const result = check();
      expect(result.status).toBe(1);
      for (const provider of providers)
        expect(result.stderr).toContain(
          `The provider '${provider}' is missing: add the package @queuebox/${pkg} to the QueueBox runtime install.`,
        );
      expect(result.stderr).not.toContain("'postgresql'");
    },
  );

  it('fails naming the provider and the package when the package is missing', () => {
    rmSync(join(target, 'node_modules/@queuebox/postgres'), { recursive: true, force: true });
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "The provider 'postgresql' is missing: add the package @queuebox/postgres",
    );
  });
});
