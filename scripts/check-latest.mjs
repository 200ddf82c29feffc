#!/usr/bin/env node
// `pnpm check:latest`: the canary of the published packages. The consumer test of
// packages/testing/test/published-packages.integration.test.ts, once, with every driver and type
// package at the registry's `latest` instead of the pinned versions of
// packages/testing/test/consumer/versions.ts: npm's peer check, the TypeScript consumer and the
// README and docs examples. Prints the versions it got and what broke; exits 1 when something
// broke. CI runs it and reports, never fails on it: the registry's state must not decide whether a
// commit lands. Run after `pnpm build`, with the local PostgreSQL up.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'queuebox-check-latest-'));
const report = join(out, 'report.json');
const run = spawnSync(
  'pnpm',
  [
    'exec',
    'vitest',
    'run',
    'packages/testing/test/published-packages.integration.test.ts',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, QUEUEBOX_CONSUMER_LATEST: '1', QUEUEBOX_TEST_REQUIRE: 'postgres' },
  },
);

let failed = [];
let passed = 0;
try {
  const results = JSON.parse(readFileSync(report, 'utf8'));
  for (const file of results.testResults ?? []) {
    // A hook's failure (the installs of beforeAll, the clean-up) is the file's, not a test's.
    if (file.status === 'failed' && (file.message ?? '') !== '')
      failed.push({ name: file.name, message: file.message });
    for (const test of file.assertionResults ?? []) {
      if (test.status === 'passed') passed++;
      if (test.status === 'failed')
        failed.push({ name: test.fullName, message: (test.failureMessages ?? []).join('\n') });
    }
  }
} catch {
  failed = [
    { name: 'the consumer test', message: `vitest exited with ${run.status} and no report` },
  ];
}
rmSync(out, { recursive: true, force: true });

console.log('');
if (failed.length === 0 && run.status === 0) {
  console.log(`check:latest: the newest releases pass (${passed} tests).`);
  process.exit(0);
}
if (failed.length === 0)
  failed = [
    { name: 'vitest', message: `exited with ${run.status ?? run.signal}; its output is above` },
  ];
console.log(`check:latest: ${failed.length} thing(s) broke beside the newest releases:`);
for (const { name, message } of failed) {
  // The first lines say what broke (npm's ERESOLVE, a tsc error, an example's output).
  const lines = message.split('\n').filter((line) => line.trim() !== '');
  console.log(`- ${name}\n    ${lines.slice(0, 12).join('\n    ')}`);
}
console.log(
  'Widen the peer ranges and move the pinned newest versions in packages/testing/test/consumer/versions.ts once fixed.',
);
process.exit(1);
