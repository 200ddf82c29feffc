import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocExample } from '@queuebox/testing';

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
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], {
      cwd: PACKAGE,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let signalled = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (example.stop && !signalled && example.expect.test(output)) {
        signalled = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rmSync(file, { force: true });
      resolve({ code, output });
    });
  });
}
