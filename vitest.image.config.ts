import { defineConfig } from 'vitest/config';
import workspace from './vitest.config.js';

/**
 * `pnpm image:test` (scripts/image/test.sh): the built container image, run as a user runs it.
 * Its files are `*.image.ts`, which the workspace run (`pnpm test`) does not collect: they need
 * the image that `pnpm image:build` makes. They start containers, so they run one at a time.
 */
const { projects: _projects, ...test } = workspace.test ?? {};
export default defineConfig({
  ...workspace,
  test: {
    ...test,
    include: ['apps/queuebox/test/image/**/*.image.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
