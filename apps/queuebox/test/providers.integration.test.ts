import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './process.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The provider check on the production install that the container image copies: it passes on
 * the real install and fails, naming the provider and its package, when a provider is removed.
 */
describe('provider registry on the production install', () => {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-deploy-'));
  const target = join(dir, 'app');

  beforeAll(() => {
    assertBuilt();
    const deploy = spawnSync(
      'pnpm',
      ['--filter', '@queuebox/app', 'deploy', '--legacy', '--prod', target],
      { cwd: ROOT, encoding: 'utf8' },
    );
    if (deploy.status !== 0)
      throw new Error(`pnpm deploy failed:\n${deploy.stdout}${deploy.stderr}`);
  }, 120_000);
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

  it('fails naming the broker and its package when @queuebox/rabbitmq is missing', () => {
    rmSync(join(target, 'node_modules/@queuebox/rabbitmq'), { recursive: true, force: true });
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "The provider 'rabbitmq' is missing: add the package @queuebox/rabbitmq to the QueueBox runtime install.",
    );
    expect(result.stderr).not.toContain("'postgresql'");
  });

  it('fails naming the broker and its package when @queuebox/nats is missing', () => {
    rmSync(join(target, 'node_modules/@queuebox/nats'), { recursive: true, force: true });
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "The provider 'nats' is missing: add the package @queuebox/nats to the QueueBox runtime install.",
    );
    expect(result.stderr).not.toContain("'postgresql'");
  });

  it('fails naming the broker and its package when @queuebox/kafka is missing', () => {
    rmSync(join(target, 'node_modules/@queuebox/kafka'), { recursive: true, force: true });
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "The provider 'kafka' is missing: add the package @queuebox/kafka to the QueueBox runtime install.",
    );
    expect(result.stderr).not.toContain("'postgresql'");
  });

  it('fails naming the database and its package when @queuebox/sqlserver is missing', () => {
    rmSync(join(target, 'node_modules/@queuebox/sqlserver'), { recursive: true, force: true });
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "The provider 'sqlserver' is missing: add the package @queuebox/sqlserver to the QueueBox runtime install.",
    );
    expect(result.stderr).toContain(
      "The provider 'sqlserver-cdc' is missing: add the package @queuebox/sqlserver to the QueueBox runtime install.",
    );
  });

  it('fails naming the provider and the package when the package is missing', () => {
    rmSync(join(target, 'node_modules/@queuebox/postgres'), { recursive: true, force: true });
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "The provider 'postgresql' is missing: add the package @queuebox/postgres",
    );
  });
});
