import { defineConfig } from 'vitest/config';

// Tests run on the packages' TypeScript sources: the `@queuebox/source` export condition points
// each workspace package at `src/`, so a test never depends on a stale `dist/`.
const conditions = ['@queuebox/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@queuebox/source'] } },
  test: {
    projects: ['packages/*', 'apps/*'].map((glob) => ({
      extends: true,
      test: {
        name: glob,
        dir: glob.replace('/*', ''),
        include: ['**/src/**/*.test.ts', '**/test/**/*.test.ts'],
      },
    })),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
