#!/usr/bin/env node
// Runs every test of the workspace in one vitest run and ends with the line CI reads:
// `N passed, N failed, N skipped`, counted per test (not per file), over every package.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const results = JSON.parse(readFileSync(out, 'utf8'));
  passed = results.numPassedTests;
  failed = results.numFailedTests;
  skipped = results.numPendingTests + results.numTodoTests;
  // A file that fails to load has no tests to count; count it as a failure so it cannot hide.
  for (const file of results.testResults) {
    if (file.status === 'failed' && file.assertionResults.length === 0) failed += 1;
  }
} catch (error) {
  console.error(`Could not read the test results: ${error.message}`);
  failed += 1;
}
rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
