import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runExampleFile, type DocExample } from '@queuebox/testing';

const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
export const REPOSITORY = join(PACKAGE, '../../');

/**
 * Runs a docs example with plain Node from inside this package, so `@queuebox/inbox` resolves to
 * its own build (dist/, by the package's exports) and the driver to this package's dependency:
 * what a user's script gets once both are installed. A `stop` example gets SIGTERM once its
 * output showed what it expects.
 */
export function runDocExample(
  example: DocExample,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  if (!existsSync(join(PACKAGE, 'dist', 'index.js'))) {
    throw new Error('packages/inbox/dist is missing: run `pnpm build` first.');
  }
  const file = join(PACKAGE, `.docs-example-${process.pid}-${example.index}.mjs`);
  writeFileSync(file, example.code);
  return runExampleFile(file, example, { cwd: PACKAGE, env }).finally(() =>
    rmSync(file, { force: true }),
  );
}
