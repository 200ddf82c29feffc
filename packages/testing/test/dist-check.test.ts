import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirsAfterEach } from '../src/suite-scope.js';

const SCRIPT = fileURLToPath(new URL('../../../scripts/check-dist.mjs', import.meta.url));

/**
 * The build's dist check (scripts/check-dist.mjs, run by `pnpm build`), run as the build runs it
 * on a workspace made up here: a production package and the dev-only @queuebox/testing, each
 * with a dist. Each planted file must fail the check and be named; a clean dist passes.
 */
describe('the dist check of the build', () => {
  const tempDir = tempDirsAfterEach();

  function workspace(files: Record<string, string>): string {
    const root = tempDir('qb-dist-check-');
    const all: Record<string, string> = {
      'packages/core/package.json': '{"name":"@queuebox/core"}',
      'packages/core/dist/index.js': "export * from './model.js';\n",
      'packages/core/dist/index.d.ts': "export * from './model.js';\n",
      'packages/core/dist/model.js': 'export const model = 1;\n',
      'packages/testing/package.json': '{"name":"@queuebox/testing"}',
      // Test support is the dev-only package's purpose: never checked.
      'packages/testing/dist/fakes/in-memory-outbox-store.js': "import 'vitest';\n",
      'apps/queuebox/package.json': '{"name":"@queuebox/app"}',
      'apps/queuebox/dist/main.js': "import { model } from '@queuebox/core';\n",
      ...files,
    };
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  function check(root: string): { status: number | null; output: string } {
    const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
    return { status: run.status, output: run.stdout + run.stderr };
  }

  it('passes a dist with production code only', () => {
    const { status, output } = check(workspace({}));
    expect(output).toContain('no test code in the dist of 2 production packages');
    expect(status).toBe(0);
  });

  it.each([
    ['packages/core/dist/model.test.js', 'a test or test-support file'],
    ['packages/core/dist/model.spec.d.ts', 'a test or test-support file'],
    ['packages/core/dist/poller/testing/fakes.js', 'a test-support folder (testing/)'],
    ['packages/core/dist/test/support.js', 'a test-support folder (test/)'],
    ['packages/core/dist/inbox-test-tables.js', 'a test or test-support file'],
    ['packages/core/dist/relay-harness.d.ts', 'a test or test-support file'],
    ['packages/core/dist/fake-transformer.js.map', 'a test or test-support file'],
    ['packages/core/dist/in-memory-inbox-store.js', 'a test or test-support file'],
    ['apps/queuebox/dist/recording-logger.js', 'a test or test-support file'],
  ])('fails on %s', (path, problem) => {
    const { status, output } = check(workspace({ [path]: 'export {};\n' }));
    expect(status).toBe(1);
    expect(output).toContain(`${path.split('/dist/')[1]}: ${problem}`);
  });

  it.each([
    ["import { describe } from 'vitest';\n", 'imports vitest'],
    ["export { recordingLogger } from '@queuebox/testing';\n", 'imports @queuebox/testing'],
    ["const t = await import('@queuebox/testing');\n", 'imports @queuebox/testing'],
    ["import type { Mock } from '@vitest/spy';\n", 'imports @vitest/spy'],
    ["const { GenericContainer } = require('testcontainers');\n", 'imports testcontainers'],
  ])('fails on a dist file that says %s', (text, problem) => {
    const { status, output } = check(workspace({ 'packages/core/dist/model.js': text }));
    expect(status).toBe(1);
    expect(output).toContain(`@queuebox/core: dist/model.js: ${problem}`);
  });

  it('fails before a build, when a production package has no dist', () => {
    const root = workspace({});
    rmSync(join(root, 'apps/queuebox/dist'), { recursive: true });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain('@queuebox/app: dist/: no dist (build first)');
  });
});
