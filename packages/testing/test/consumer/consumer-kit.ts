import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DocExample } from '../../src/index.js';
import { CONSUMER_FILES, DECLARATIONS } from './consumer-sources.js';
import type { ConsumerInstall } from './versions.js';

export const RELEASED = ['core', 'config', 'postgres', 'outbox', 'inbox'];

export interface ProcessResult {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a command without blocking the event loop, so installs and type checks overlap. */
export function runAsync(command: string, args: string[], cwd: string): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => resolve({ code: null, output: `${output}${error.message}` }));
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** Each release-ready package packed by `pnpm pack` into `dir`, as a user would get it. */
export function packReleased(root: string, dir: string): string[] {
  return RELEASED.map((name) => {
    const dist = join(root, 'packages', name, 'dist', 'index.js');
    if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`pnpm build\` first.`);
    const packed = spawnSync('pnpm', ['pack', '--pack-destination', dir], {
      cwd: join(root, 'packages', name),
      encoding: 'utf8',
    });
    if (packed.status !== 0)
      throw new Error(`pnpm pack of ${name}:\n${packed.stdout}${packed.stderr}`);
    return packed.stdout.trim().split('\n').pop()!;
  });
}

export interface InstallOutcome {
  readonly install: ConsumerInstall;
  readonly dir: string;
  /** npm's output when the install failed; null when it succeeded. */
  readonly installError: string | null;
  /** tsc's output when the check failed; empty when it passed. */
  readonly typeErrors: string;
  readonly seconds: number;
}

export interface InstallOptions {
  readonly tsc: string;
  /** `pnpm check:latest` asks the registry; pinned installs prefer the shared npm cache. */
  readonly online: boolean;
}

const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--loglevel=error'];

/**
 * The base install: the tarballs and every driver installed together by npm in a fresh
 * directory (so npm, not we, decides whether our peer ranges accept them), then type-checked.
 */
export async function installBase(
  parent: string,
  tarballs: readonly string[],
  install: ConsumerInstall,
  options: InstallOptions,
): Promise<InstallOutcome> {
  const started = performance.now();
  const dir = join(parent, dirName(install));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    '{ "name": "consumer", "private": true, "type": "module" }',
  );
  const cache = options.online ? '--prefer-online' : '--prefer-offline';
  const npm = await runAsync('npm', [...NPM_INSTALL, cache, ...tarballs, ...install.specs], dir);
  return finish(install, dir, npm, options, started);
}

/**
 * An install that varies one driver: a copy of the base install (hard links, so it costs no
 * disk) in which npm changes only that driver and what it needs, then type-checked.
 */
export async function installVariant(
  parent: string,
  base: InstallOutcome,
  install: ConsumerInstall,
  options: InstallOptions,
): Promise<InstallOutcome> {
  const started = performance.now();
  const dir = join(parent, dirName(install));
  if (base.installError !== null) {
    return { install, dir, installError: 'The base install failed.', typeErrors: '', seconds: 0 };
  }
  mkdirSync(dir, { recursive: true });
  await copyTree(join(base.dir, 'node_modules'), join(dir, 'node_modules'));
  // npm rewrites these in place, which would write through a hard link into the base install.
  rmSync(join(dir, 'node_modules', '.package-lock.json'), { force: true });
  for (const file of ['package.json', 'package-lock.json']) {
    copyFileSync(join(base.dir, file), join(dir, file));
  }
  const varied = install.specs.filter((spec) => !base.install.specs.includes(spec));
  const npm = await runAsync('npm', [...NPM_INSTALL, '--prefer-offline', ...varied], dir);
  return finish(install, dir, npm, options, started);
}

async function finish(
  install: ConsumerInstall,
  dir: string,
  npm: ProcessResult,
  options: InstallOptions,
  started: number,
): Promise<InstallOutcome> {
  const seconds = () => (performance.now() - started) / 1000;
  if (npm.code !== 0) {
    return { install, dir, installError: npm.output, typeErrors: '', seconds: seconds() };
  }
  const typeErrors = await typeCheck(dir, options.tsc, install);
  console.log(`consumer ${install.label}: installed and type-checked in ${seconds().toFixed(0)} s`);
  return { install, dir, installError: null, typeErrors, seconds: seconds() };
}

const dirName = (install: ConsumerInstall) => install.label.replace(/[^\w.-]+/g, '_');

/** `cp -al` where it exists (Linux); a plain copy elsewhere. */
async function copyTree(from: string, to: string): Promise<void> {
  const linked = await runAsync('cp', ['-al', from, to], '/');
  if (linked.code !== 0) {
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  }
}

/**
 * The consumer files of the install's driver (all of them on the base install) with every
 * client library's types skipped (drizzle's .d.ts name optional drivers), then our declaration
 * files alone, checked in full; those import only postgres.js's types, so they are checked
 * again only when postgres.js varies.
 */
async function typeCheck(dir: string, tsc: string, install: ConsumerInstall): Promise<string> {
  for (const [file, text] of Object.entries(CONSUMER_FILES)) writeFileSync(join(dir, file), text);
  writeFileSync(join(dir, 'declarations.ts'), DECLARATIONS);
  const consumer =
    install.varied === null ? Object.keys(CONSUMER_FILES) : ['common.ts', `${install.varied}.ts`];
  const checks: [string[], boolean][] = [[consumer, true]];
  if (install.varied === null || install.varied === 'postgres')
    checks.push([['declarations.ts'], false]);
  const errors: string[] = [];
  for (const [files, skipLibCheck] of checks) {
    const config = join(dir, `tsconfig.${skipLibCheck ? 'consumer' : 'declarations'}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck,
          types: ['node'],
        },
        files,
      }),
    );
    const result = await runAsync(process.execPath, [tsc, '-p', config], dir);
    if (result.code !== 0) errors.push(`${files.join(', ')}: ${result.output}`);
  }
  return errors.join('\n');
}

/** Runs `task` over `items` with at most `limit` at a time, results in input order. */
export async function inPool<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * The examples an install runs: all of them on the base install; on an install that varies one
 * driver, the examples that name that driver (an import, or knex's `client: 'pg'`). Every
 * example's preparation runs QueueBox's migrations through the installed postgres.js.
 */
export function examplesFor(
  install: ConsumerInstall,
  examples: readonly DocExample[],
): DocExample[] {
  if (install.varied === null) return [...examples];
  const named = new RegExp(`['"]${install.varied.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"/]`);
  return examples.filter((example) => named.test(example.code));
}
