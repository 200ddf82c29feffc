#!/usr/bin/env node
// Packs every release-ready package (each packages/* whose manifest is not private) the way
// `pnpm publish` would, and lints the tarball: publint (the manifest, exports and files) and
// Are-The-Types-Wrong (types as Node's ESM resolution and bundlers see them; CommonJS and node10
// resolution are out of scope for ESM-only packages), and its contents (tarball-contents.mjs:
// source maps carry their sources, no build-time tool ships). Run after `pnpm build`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tarballProblems } from './tarball-contents.mjs';

const root = new URL('..', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'queuebox-pack-'));
const run = (command, args, cwd = root) =>
  spawnSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

const packages = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true);

const failures = [];
for (const { dir, manifest } of packages) {
  if (!existsSync(join(dir, 'dist', 'index.js'))) {
    failures.push(`${manifest.name}: dist/ is missing; run \`pnpm build\` first.`);
    continue;
  }
  const pack = run('pnpm', ['pack', '--pack-destination', out], dir);
  const tarball = pack.stdout.trim().split('\n').pop();
  if (pack.status !== 0 || !tarball?.endsWith('.tgz')) {
    failures.push(`${manifest.name}: pnpm pack failed\n${pack.stdout}${pack.stderr}`);
    continue;
  }
  const contents = tarballProblems(tarball);
  console.log(`${manifest.name}: contents ${contents.length === 0 ? 'ok' : 'FAILED'}`);
  if (contents.length > 0) failures.push(`${manifest.name}: contents\n  ${contents.join('\n  ')}`);
  for (const [tool, args] of [
    ['publint', ['exec', 'publint', '--strict', tarball]],
    ['attw', ['exec', 'attw', tarball, '--profile', 'esm-only', '--format', 'ascii']],
  ]) {
    const result = run('pnpm', args);
    const verdict = result.status === 0 ? 'ok' : 'FAILED';
    console.log(`${manifest.name}: ${tool} ${verdict}`);
    if (result.status !== 0)
      failures.push(`${manifest.name}: ${tool}\n${result.stdout}${result.stderr}`);
  }
}
rmSync(out, { recursive: true, force: true });
if (failures.length > 0) {
  console.error(failures.join('\n\n'));
  process.exit(1);
}
console.log(
  `${packages.length} packages pass publint, Are-The-Types-Wrong and the contents check.`,
);
