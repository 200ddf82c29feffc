import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FIXTURES = join(ROOT, 'packages/testing/test/lint-fixtures');

/**
 * The import gates of eslint.config.js, run through ESLint's own API on fixture files inside a
 * package (this dev-only one) that break one rule each. The fixtures are ignored by `pnpm lint`;
 * `ignore: false` lints them here with the repository's configuration unchanged.
 */
describe('the lint configuration', () => {
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: join(ROOT, 'eslint.config.js'),
    ignore: false,
  });

  async function ruleIds(file: string): Promise<(string | null)[]> {
    const [result] = await eslint.lintFiles([join(FIXTURES, file)]);
    return result!.messages.map((message) => message.ruleId);
  }

  it('reports an import cycle', async () => {
    expect(await ruleIds('cycle-a.ts')).toEqual(['import-x/no-cycle']);
    expect(await ruleIds('cycle-b.ts')).toEqual(['import-x/no-cycle']);
  }, 120_000);

  it("reports an import of a package missing from the importing package's manifest", async () => {
    expect(await ruleIds('undeclared.ts')).toEqual(['import-x/no-extraneous-dependencies']);
  }, 120_000);

  it('reports a relative import that leaves its package', async () => {
    expect(await ruleIds('cross-package.ts')).toEqual(['import-x/no-relative-packages']);
  }, 120_000);

  it('reports nothing for built-ins, declared dependencies and imports inside the package', async () => {
    expect(await ruleIds('clean.ts')).toEqual([]);
  }, 120_000);

  it('keeps the fixtures out of the normal lint run', async () => {
    const normal = new ESLint({ cwd: ROOT });
    expect(await normal.isPathIgnored(join(FIXTURES, 'cycle-a.ts'))).toBe(true);
    expect(await normal.isPathIgnored(join(ROOT, 'packages/testing/src/fault-proxy.ts'))).toBe(
      false,
    );
  });
});
