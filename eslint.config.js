// Type-aware linting plus the layer rules of docs/architecture: core imports no driver and no
// Node I/O; services never import adapters; nobody deep-imports another package's src.
import js from '@eslint/js';
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

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      'deploy/**',
      '**/*.js',
      '**/*.mjs',
      'vitest.config.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
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
