#!/usr/bin/env node
// Proves the built `dist/` of every production package holds no test code: no test files, no
// test-support folders or files (testing/, test/, fixtures, fakes, harnesses, test tables), and no
// import of a test-only module (vitest, @queuebox/testing, testcontainers). `pnpm build` runs it
// after turbo, and so does CI through the image build. Exits 1 and names every offending file.
//
//   node scripts/check-dist.mjs [workspace root]   (default: this repository)
//
// Production packages are the workspace packages (packages/*, apps/*) except the dev-only ones
// that exist to hold test support or benchmarks.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Dev-only packages: test support is their purpose, or they never ship. */
const DEV_ONLY = new Set(['@queuebox/testing', '@queuebox/bench']);

/** A path segment (folder) that only test support lives in. */
const TEST_FOLDERS = new Set(['test', 'tests', 'testing', '__tests__', 'fixtures', 'fakes']);

/** A file name (without its .js/.d.ts/.map endings) that only test code has. */
const TEST_NAME =
  /[.-](test|spec)$|test-tables|harness|(^|[-.])fakes?([-.]|$)|^in-memory-.*-store$|recording-logger/i;

function isTestFile(file) {
  const base = file.replace(/\.map$/, '').replace(/\.d\.[cm]?ts$|\.[cm]?[jt]s$/, '');
  return TEST_NAME.test(base);
}

/** An import or require of a module that only tests use, in emitted JavaScript or declarations. */
const TEST_IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"](vitest|@vitest\/[^'"]*|@queuebox\/testing|testcontainers)(?:\/[^'"]*)?['"]/m;

const CODE = /\.(?:[cm]?js|d\.[cm]?ts)$/;

/** Every production package directory of the workspace at `root`, with its name. */
export function productionPackages(root) {
  const packages = [];
  for (const parent of ['packages', 'apps']) {
    const dir = join(root, parent);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const manifestPath = join(dir, entry.name, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const { name } = JSON.parse(readFileSync(manifestPath, 'utf8'));
      if (!DEV_ONLY.has(name)) packages.push({ name, dir: join(dir, entry.name) });
    }
  }
  return packages;
}

function filesUnder(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(path));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** What is wrong with one dist file, or null. `path` is relative to the dist folder. */
export function problemOf(path, text) {
  const segments = path.split(/[\\/]/);
  const folder = segments.slice(0, -1).find((segment) => TEST_FOLDERS.has(segment));
  if (folder !== undefined) return `a test-support folder (${folder}/)`;
  const file = segments.at(-1) ?? '';
  if (isTestFile(file)) return 'a test or test-support file';
  if (text !== null) {
    const match = TEST_IMPORT.exec(text);
    if (match) return `imports ${match[1]}`;
  }
  return null;
}

/**
 * Every problem in the dists of the workspace at `root`: `{ pkg, file, problem }`. A package
 * without a dist is reported too, so the check cannot pass before a build.
 */
export function distProblems(root) {
  const problems = [];
  for (const { name, dir } of productionPackages(root)) {
    const dist = join(dir, 'dist');
    if (!existsSync(dist) || !statSync(dist).isDirectory()) {
      problems.push({ pkg: name, file: 'dist/', problem: 'no dist (build first)' });
      continue;
    }
    for (const file of filesUnder(dist)) {
      const rel = relative(dist, file);
      const text = CODE.test(file) ? readFileSync(file, 'utf8') : null;
      const problem = problemOf(rel, text);
      if (problem !== null) problems.push({ pkg: name, file: join('dist', rel), problem });
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
  const packages = productionPackages(root);
  const problems = distProblems(root);
  if (problems.length > 0) {
    console.error(`Test code in the dist of a production package (${problems.length}):`);
    for (const { pkg, file, problem } of problems) console.error(`  ${pkg}: ${file}: ${problem}`);
    console.error(
      'Test support belongs in @queuebox/testing or the package test/ folder, never in src/. A file left over from an older build goes with `rm -rf <package>/dist` and a new build.',
    );
    process.exit(1);
  }
  console.log(`dist check: no test code in the dist of ${packages.length} production packages.`);
}
