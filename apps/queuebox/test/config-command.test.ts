import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCountingDatabase, type CountingDatabase } from './counting-database.js';
import { assertBuilt, runQueueBox, writeConfig } from './process.js';
import { HOOKS_SOURCE } from './yaml-pieces.js';

/**
 * The operator's commands that need no database, run as the built process: help, version,
 * `config check` and `config print`. The database URL points at a TCP server that counts the
 * connections it receives, so "no connection attempted" is an observation, not a promise.
 */
const REFERENCE = fileURLToPath(
  new URL('../../../packages/config/testdata/reference-configs', import.meta.url),
);

/**
 * What `config check` reports for each reference configuration: exactly the features this
 * build lacks (none since the Kafka and NATS providers landed). A provider that lands empties its lines
 * here, as capture (postgres-logical) did for cdc.yml.
 */
const UNBUILT: Record<string, readonly string[]> = {
  'cdc.yml': [],
  'http-fanout.yml': [],
  'kafka-bridge.yml': [],
  'nats-bridge.yml': [],
  'pull.yml': [],
  'quickstart.yml': [],
  'rabbitmq-bridge.yml': [],
  'webhook-receiver.yml': [],
};

/** The `  - ` lines of a problem report. */
const problemsOf = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('  - '))
    .map((line) => line.slice(4));

let database: CountingDatabase;
let databaseEnv: Record<string, string>;

beforeAll(async () => {
  assertBuilt();
  database = await startCountingDatabase();
  databaseEnv = {
    QUEUEBOX_DATABASE_URL: database.url,
    QUEUEBOX_DATABASE_USERNAME: 'queuebox',
    QUEUEBOX_DATABASE_PASSWORD: 'env-password-never-printed',
  };
});

afterAll(async () => {
  await database?.close();
});

describe('help and version', () => {
  it('prints the usage with every command on stdout and exits 0 for --help and -h', async () => {
    for (const flag of ['--help', '-h']) {
      const result = await runQueueBox([flag], {});
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      for (const word of [
        'migrate --baseline',
        'config check',
        'config print',
        'healthcheck',
        'dev',
      ])
        expect(result.stdout).toContain(word);
    }
  });

  it('prints the version and exits 0', async () => {
    const result = await runQueueBox(['--version'], {});
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^queuebox \d+\.\d+\.\d+$/);
  });

  it("prints one command's usage for <command> --help", async () => {
    const result = await runQueueBox(['config', '--help'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: queuebox config check|print [--config <file>]');
  });

  it('keeps exit 2 for a word it does not know', async () => {
    const result = await runQueueBox(['--verbose'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown command '--verbose'.");
  });
});

describe('queuebox config check', () => {
  const files = readdirSync(REFERENCE).filter((name) => name.endsWith('.yml'));

  it('knows every reference configuration', () => {
    expect(files.sort()).toEqual(Object.keys(UNBUILT).sort());
  });

  it.each(files)('passes %s or names exactly what this build lacks', async (file) => {
    const before = database.count();
    const result = await runQueueBox(
      ['config', 'check', '--config', join(REFERENCE, file)],
      databaseEnv,
    );
    const expected = UNBUILT[file] ?? [];
    expect(problemsOf(result.stderr)).toEqual(expected);
    expect(result.code).toBe(expected.length === 0 ? 0 : 1);
    if (expected.length === 0) expect(result.stdout).toContain('The configuration has no problems');
    expect(database.count()).toBe(before);
  });

  it('lists every problem of a broken file at once and connects to nothing', async () => {
    const before = database.count();
    const file = writeConfig(`
outbox:
  batchSzie: 5
destinations:
  billing:
    baseUrl: https://billing.example.com
routes:
  - topicPattern: "order.*"
`);
    const result = await runQueueBox(['config', 'check', '--config', file], {
      ...databaseEnv,
      QUEUEBOX_OUTBOX_POLL_INTERVAL_MS: '50',
      LOG_FORMAT: 'xml',
    });
    expect(result.code).toBe(1);
    expect(problemsOf(result.stderr)).toEqual([
      "LOG_FORMAT must be text or json, not 'xml'",
      'outbox.batchSzie: unknown key; did you mean batchSize?',
      'QUEUEBOX_OUTBOX_POLL_INTERVAL_MS: unknown variable; did you mean QUEUEBOX_OUTBOX_POLLINTERVALMS?',
      'destinations.billing: missing type; set one of http, kafka, nats, rabbitmq',
      'routes[0].destination: required; set it in the YAML file or with QUEUEBOX_ROUTES_0_DESTINATION',
    ]);
    expect(result.stderr).toContain('The configuration has 5 errors.');
    expect(result.stdout + result.stderr).not.toContain('env-password-never-printed');
    expect(database.count()).toBe(before);
  });

  it('lists the problems found after loading too: the database URL, transforms, publishers, sources', async () => {
    const before = database.count();
    const file = writeConfig(`
destinations:
  sink:
    type: http
    baseUrl: http://127.0.0.1:9
    transform:
      expression: "$$.{"
  stream:
    type: kafka
    bootstrapServers: kafka:9092
    topic: orders
routes:
  - topicPattern: "**"
    destination: sink
sources:
  hooks:
    path: /hooks
    idempotencyKeyExpression: "$$.{"
    eventTypePath: $.type
`);
    const result = await runQueueBox(['config', 'check', '--config', file], {
      ...databaseEnv,
      QUEUEBOX_DATABASE_URL: `${databaseEnv.QUEUEBOX_DATABASE_URL}?sslmode=bogus`,
    });
    expect(result.code).toBe(1);
    expect(problemsOf(result.stderr)).toEqual([
      "'database.url' has sslmode=bogus; use disable, allow, prefer, require, verify-ca or verify-full.",
      'destinations.sink.transform.expression: the JSONata expression does not compile: Expected ":" before end of expression (position 4)',
      'sources.hooks.idempotencyKeyExpression: the JSONata expression does not compile: Expected ":" before end of expression (position 4)',
    ]);
    expect(database.count()).toBe(before);
  });

  it.each([
    ['an empty file', () => ({ QUEUEBOX_CONFIG_FILE: writeConfig('') })],
    [
      'QUEUEBOX_CONFIG_FILE naming a missing file',
      () => ({ QUEUEBOX_CONFIG_FILE: '/nonexistent/q.yml' }),
    ],
  ])('says that no configuration was found for %s, as the start does', async (_name, env) => {
    const result = await runQueueBox(['config', 'check'], env());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No configuration was found.');
    expect(result.stderr).not.toContain('0 errors');
  });

  it('names the file it checked', async () => {
    const file = join(REFERENCE, 'quickstart.yml');
    const result = await runQueueBox(['config', 'check', '--config', file], databaseEnv);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Checked the file ${file}.`);
  });

  it('says so when, without a file or variable, it checked the packaged demo configuration', async () => {
    const result = await runQueueBox(['config', 'check'], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'Checked the packaged demo configuration (no QUEUEBOX_CONFIG_FILE',
    );
  });

  it('names a --config file that is not there', async () => {
    const result = await runQueueBox(['config', 'check', '--config', '/nonexistent/q.yml'], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'The configuration file /nonexistent/q.yml given with --config does not exist.',
    );
  });
});

describe('queuebox config print', () => {
  it('prints every setting with its source and no secret from the file or the variables', async () => {
    const secretFile = writeConfig('file-secret-from-a-file\n');
    const file = writeConfig(`
database:
  password: yaml-password-in-the-file
destinations:
  billing:
    type: http
    baseUrl: https://billing.example.com
    headers:
      Authorization: Bearer header-token-in-the-file
    auth:
      type: basic
      username: queuebox
      password: file:${secretFile}
routes:
  - topicPattern: "billing.*"
    destination: billing
${HOOKS_SOURCE}    auth:
      type: bearer
      token: yaml-bearer-token
`);
    const result = await runQueueBox(['config', 'print', '--config', file], {
      QUEUEBOX_DATABASE_USERNAME: 'queuebox',
      QUEUEBOX_DATABASE_URL: `${databaseEnv.QUEUEBOX_DATABASE_URL}?password=url-password-in-env`,
      QUEUEBOX_OUTBOX_BATCHSIZE: '42',
      QUEUEBOX_ADMIN_ENABLED: 'true',
      QUEUEBOX_ADMIN_AUTH_TYPE: 'api-key',
      QUEUEBOX_ADMIN_AUTH_KEY: 'env-admin-key',
    });
    expect(result.code).toBe(0);
    const output = result.stdout + result.stderr;
    for (const secret of [
      'yaml-password-in-the-file',
      'header-token-in-the-file',
      'file-secret-from-a-file',
      'yaml-bearer-token',
      'url-password-in-env',
      'env-admin-key',
      'env-password-never-printed',
    ]) {
      expect(output).not.toContain(secret);
    }
    const line = (path: string) =>
      result.stdout.split('\n').find((text) => text.startsWith(`${path} = `)) ?? '';
    expect(line('outbox.batchSize')).toMatch(
      /^outbox\.batchSize = 42 +# variable QUEUEBOX_OUTBOX_BATCHSIZE$/,
    );
    expect(line('outbox.concurrency')).toMatch(/= 8 +# default$/);
    expect(line('database.password')).toMatch(/= Secret\(\*\*\*\) +# file$/);
    expect(line('admin.auth.key')).toMatch(
      /= Secret\(\*\*\*\) +# variable QUEUEBOX_ADMIN_AUTH_KEY$/,
    );
    expect(line('destinations.billing.auth.password')).toMatch(/= Secret\(\*\*\*\) +# file$/);
    expect(line('destinations.billing.headers.Authorization')).toMatch(/= \*\*\* +# file$/);
    expect(line('database.url')).toContain('?password=***"');
    expect(line('inbox.relay.maxAttempts')).toMatch(/= 5 +# default: outbox\.maxAttempts$/);
    expect(result.stdout).toContain(`the file ${file}`);
    expect(database.count()).toBe(0);
  });

  it('prints the problems and exits 1 when the configuration does not load', async () => {
    const file = writeConfig('outbox:\n  batchSzie: 5\n');
    const result = await runQueueBox(['config', 'print', '--config', file], databaseEnv);
    expect(result.code).toBe(1);
    expect(problemsOf(result.stderr)).toEqual([
      'outbox.batchSzie: unknown key; did you mean batchSize?',
    ]);
  });
});
