// Type-aware linting plus the layer rules of docs/architecture: core imports no driver and no
// Node I/O; services never import adapters; nobody deep-imports another package's src; no
// import cycles; every package imports only what its package.json declares; no relative import
// leaves its package. packages/testing/test/lint-config.test.ts shows each import rule firing.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const drivers = [
  'postgres',
  'tedious',
  'amqplib',
  'kafkajs',
  'nats',
  'undici',
  'pino',
  'hono',
  '@hono/*',
];
const adapters = [
  '@queuebox/postgres',
  '@queuebox/sqlserver',
  '@queuebox/rabbitmq',
  '@queuebox/kafka',
  '@queuebox/nats',
  '@queuebox/capture',
  '@queuebox/app',
];
const deepImports = {
  group: ['@queuebox/*/src/*', '../../*/src/*', '../../../packages/*'],
  message: 'Import the package through its exports map.',
};

/** Every workspace package directory, so each one's imports are checked against its own manifest. */
const workspaceDirs = [
  'apps/queuebox',
  'bench',
  ...readdirSync(new URL('./packages', import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `packages/${entry.name}`),
];

/** Files that may use devDependencies: tests, test support, benchmarks, build scripts. */
const devOnlyFiles = [
  '**/*.test.ts',
  '**/test/**',
  '**/testing/**',
  'packages/testing/**',
  'packages/dev/**',
  'bench/**',
  'scripts/**',
  'packages/*/scripts/**',
  'apps/*/scripts/**',
  '*.config.*',
  // `queuebox dev` loads the dev-only @queuebox/dev when it is installed and says how when not.
  'apps/queuebox/src/cli/dev.ts',
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      'deploy/**',
      '**/*.js',
      'vitest.config.ts',
      'vitest.image.config.ts',
      // Deliberate violations the lint-configuration test feeds to ESLint itself.
      'packages/testing/test/lint-fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    plugins: { 'import-x': importX },
    settings: {
      // Without these, import-x skips .ts modules when it follows imports (no cycle is ever seen).
      'import-x/extensions': ['.ts', '.mjs', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          // Workspace packages resolve to their sources, as vitest and tsc see them.
          conditionNames: ['@queuebox/source', 'types', 'import', 'node', 'default'],
          project: ['tsconfig.base.json', 'apps/*/tsconfig.json', 'packages/*/tsconfig.json'],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      'no-restricted-imports': ['error', { patterns: [deepImports] }],
      // Packages are dependencies, not part of the cycle search: their own lint covers them.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-relative-packages': 'error',
    },
  },
  ...workspaceDirs.map((dir) => ({
    files: [`${dir}/**/*.{ts,mjs}`],
    rules: {
      // The package's manifest, plus the root's devDependencies (vitest, eslint) for dev files.
      'import-x/no-extraneous-dependencies': [
        'error',
        {
          packageDir: [dir, '.'],
          devDependencies: devOnlyFiles,
          optionalDependencies: false,
          peerDependencies: true,
          includeTypes: true,
        },
      ],
    },
  })),
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: globals.node,
    },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    ignores: ['packages/core/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            deepImports,
            {
              group: ['node:*', ...drivers, '@queuebox/*'],
              message: 'core performs no I/O and depends on nothing.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/{outbox-service,inbox-service,capture,config}/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            deepImports,
            {
              group: [...adapters, 'postgres', 'tedious', 'amqplib', 'kafkajs', 'nats'],
              message: 'A service talks to the outside only through core ports.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'packages/testing/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
);
