#!/usr/bin/env node
// Runs every test of the workspace in one vitest run and ends with the line CI reads:
// `N passed, N failed, N skipped`, counted per test (not per file), over every package.
// Then the guarantee check (scripts/guarantees.mjs): every test the README names under
// "Proved by" must be in this run's report and have passed; each one that does not counts as a
// failure. QUEUEBOX_GUARANTEES_README points the check at another file (its own tests do).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeRun, runGuaranteeCheck } from './guarantees.mjs';
import './check-node.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);

const dir = mkdtempSync(join(tmpdir(), 'queuebox-tests-'));
const out = join(dir, 'results.json');
const run = spawnSync(
  'pnpm',
  [
    'exec',
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${out}`,
    ...args,
  ],
  { stdio: 'inherit' },
);

let passed = 0;
let failed = 0;
let skipped = 0;
let read = false;
try {
  const results = JSON.parse(readFileSync(out, 'utf8'));
  passed = results.numPassedTests;
  failed = results.numFailedTests;
  skipped = results.numPendingTests + results.numTodoTests;
  // A file that fails to load has no tests to count; count it as a failure so it cannot hide.
  for (const file of results.testResults) {
    if (file.status === 'failed' && file.assertionResults.length === 0) failed += 1;
  }
  read = true;
} catch (error) {
  console.error(`Could not read the test results: ${error.message}`);
  failed += 1;
}
if (read) {
  try {
    const guarantees = runGuaranteeCheck({
      readme: resolve(process.env.QUEUEBOX_GUARANTEES_README ?? join(root, 'README.md')),
      report: out,
      root,
      required: (process.env.QUEUEBOX_TEST_REQUIRE ?? '').split(',').filter(Boolean),
      ...describeRun(args),
    });
    console.log(guarantees.text);
    failed += guarantees.failed;
  } catch (error) {
    console.error(`The guarantee check could not run: ${error.message}`);
    failed += 1;
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
