import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run on the packages' TypeScript sources: the `@queuebox/source` export condition points
// each workspace package at `src/`, so a test never depends on a stale `dist/`.
const conditions = ['@queuebox/source', 'import', 'module', 'node', 'default'];
// Vitest hands the SSR conditions to Node as `--conditions` flags, so they also steer require():
// `import` there would make a CommonJS driver (pg requiring pg-pool) load an ES module. Vite adds
// `import` or `require` per import by itself.
const nodeConditions = ['@queuebox/source', 'node', 'default'];

/**
 * One vitest project per workspace package, named by its package name, so a package's own
 * `test` script (`vitest run --root ../.. --project @queuebox/core`) runs exactly its tests,
 * unit and integration, while `pnpm test` still runs every project in one run with one count.
 * The list follows pnpm-workspace.yaml: `packages/*`, `apps/*` and `bench`.
 */
function workspacePackages(): { name: string; dir: string }[] {
  // Paths from this file, not the working directory: a package's script runs in its own folder.
  const root = fileURLToPath(new URL('.', import.meta.url));
  const dirs = ['packages', 'apps'].flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name)),
  );
  dirs.push('bench');
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => {
      const manifest = readFileSync(join(root, dir, 'package.json'), 'utf8');
      return { name: (JSON.parse(manifest) as { name: string }).name, dir: join(root, dir) };
    });
}

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions: nodeConditions, externalConditions: ['@queuebox/source'] } },
  test: {
    projects: workspacePackages().map(({ name, dir }) => ({
      extends: true,
      test: {
        name,
        dir,
        include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      },
    })),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
