import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFreshDatabase,
  examplesOf,
  requireService,
  runExampleFile,
  type DocExample,
} from '../src/index.js';

const pg = await requireService('postgres', 'published packages: README and docs examples');

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RELEASED = ['core', 'config', 'postgres', 'outbox', 'inbox'];
/** What a consumer installs beside the tarballs: the drivers the examples use, and Node's types. */
const BESIDE = [
  'pg',
  'postgres',
  'knex',
  'drizzle-orm',
  'kysely',
  'mssql@12.2.0',
  '@types/node@20',
  '@types/pg',
  '@types/mssql@12.3.0',
];

const examples: DocExample[] = [
  ...RELEASED.flatMap((name) =>
    examplesOf(join(ROOT, 'packages', name, 'README.md'), `@queuebox/${name} README`),
  ),
  ...examplesOf(join(ROOT, 'docs/outbox-client.md'), 'docs/outbox-client.md'),
  ...examplesOf(join(ROOT, 'docs/pull.md'), 'docs/pull.md'),
  // SQL Server examples run in the SQL Server suite of the package they show (wherever a SQL
  // Server answers): this run has a PostgreSQL only.
].filter((example) => !example.sqlserver);

/**
 * The packages as a user gets them: each release-ready package packed by `pnpm pack`, the
 * tarballs installed together with npm in a fresh directory outside the workspace, every README
 * and docs example run there with plain Node against the real PostgreSQL, and a TypeScript
 * consumer type-checked with `moduleResolution: nodenext`.
 */
describe.skipIf(!pg.available)('the published packages', () => {
  let dir: string;

  beforeAll(() => {
    for (const name of RELEASED) {
      const dist = join(ROOT, 'packages', name, 'dist', 'index.js');
      if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`pnpm build\` first.`);
    }
    dir = mkdtempSync(join(tmpdir(), 'queuebox-consumer-'));
    const tarballs = RELEASED.map((name) => {
      const packed = run('pnpm', ['pack', '--pack-destination', dir], join(ROOT, 'packages', name));
      return packed.stdout.trim().split('\n').pop()!;
    });
    writeFileSync(
      join(dir, 'package.json'),
      '{ "name": "consumer", "private": true, "type": "module" }',
    );
    run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs, ...BESIDE],
      dir,
    );
  }, 300_000);

  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('installs each package with its README, LICENSE and types, and no TypeScript sources', () => {
    for (const name of RELEASED) {
      const installed = join(dir, 'node_modules', '@queuebox', name);
      const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
        license: string;
        private?: boolean;
        exports: Record<string, Record<string, string>>;
        dependencies?: Record<string, string>;
      };
      expect(manifest.license).toBe('Apache-2.0');
      expect(manifest.private).toBeUndefined();
      // Every entry point of the workspace manifest, without the workspace's source condition.
      const workspace = JSON.parse(
        readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8'),
      ) as { exports: Record<string, Record<string, string>> };
      expect(Object.keys(manifest.exports)).toEqual(Object.keys(workspace.exports));
      for (const [path, conditions] of Object.entries(manifest.exports)) {
        const { ['@queuebox/source']: _source, ...published } = workspace.exports[path]!;
        expect(conditions).toEqual(published);
        expect(existsSync(join(installed, conditions.default!))).toBe(true);
      }
      for (const range of Object.values(manifest.dependencies ?? {})) {
        expect(range).not.toMatch(/^workspace:/);
      }
      expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toBe(
        readFileSync(join(ROOT, 'LICENSE'), 'utf8'),
      );
      expect(existsSync(join(installed, 'README.md'))).toBe(true);
      expect(existsSync(join(installed, 'dist', 'index.d.ts'))).toBe(true);
      expect(existsSync(join(installed, 'src'))).toBe(false);
    }
  });

  it.each(examples.map((example) => [`${example.page} #${example.index + 1}`, example] as const))(
    'runs %s with plain Node',
    async (_name, example) => {
      const db = await createFreshDatabase(pg.available ? pg.url : '');
      try {
        if (!example.empty) await prepare(dir, db.url);
        const file = join(dir, `example-${Date.now()}-${example.index}.mjs`);
        writeFileSync(file, example.code);
        const result = await runExample(file, db.url, example);
        expect(result.code, result.output).toBe(0);
        expect(result.output).toMatch(example.expect);
      } finally {
        await db.drop();
      }
    },
    60_000,
  );

  it('type-checks a TypeScript consumer with moduleResolution nodenext', () => {
    writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
    writeFileSync(join(dir, 'declarations.ts'), DECLARATIONS);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    // The consumer with every client library's types (whose own .d.ts files do not all check:
    // drizzle's name optional drivers), then our declaration files alone, checked in full.
    for (const [file, skipLibCheck] of [
      ['consumer.ts', true],
      ['declarations.ts', false],
    ] as const) {
      const config = join(dir, `tsconfig.${file}.json`);
      writeFileSync(
        config,
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            noEmit: true,
            skipLibCheck,
            types: ['node'],
          },
          files: [file],
        }),
      );
      const result = spawnSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8' });
      expect(result.status, `${file}: ${result.stdout}${result.stderr}`).toBe(0);
    }
  }, 120_000);
});

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: process.env });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd}:\n${result.stdout}${result.stderr}`,
    );
  }
  return result;
}

/** QueueBox's tables (through the installed @queuebox/postgres), the examples' own tables, and pull rows. */
async function prepare(dir: string, url: string): Promise<void> {
  const file = join(dir, 'prepare.mjs');
  writeFileSync(file, PREPARE);
  const result = await runExample(file, url, { stop: false, expect: /prepared/ });
  if (result.code !== 0) throw new Error(`prepare failed:\n${result.output}`);
}

function runExample(
  file: string,
  url: string,
  example: Pick<DocExample, 'stop' | 'expect'>,
): Promise<{ code: number | null; output: string }> {
  // The repository root as working directory: docs/pull.md reads the shipped SQL files.
  return runExampleFile(file, example, { cwd: ROOT, env: { DATABASE_URL: url } });
}

const PREPARE = `
import { silentLogger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL, { onnotice: () => undefined });
await runMigrations(sql, { logger: silentLogger });
await sql\`CREATE TABLE orders (id bigint PRIMARY KEY, total numeric NOT NULL)\`;
await sql\`CREATE TABLE processed_orders (message_id uuid PRIMARY KEY, payload jsonb NOT NULL)\`;
for (const [n, aggregate] of [[1, 'a1'], [2, 'a2'], [3, null], [4, 'a1']]) {
  await sql\`INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, consumption, created_at)
    VALUES ('orders', \${'key-' + n}, \${aggregate}, \${sql.json({ n })}, 'pull', clock_timestamp())\`;
}
await sql.end();
console.log('prepared');
`;

const CONSUMER = `
import { sanitize, type OutboxColumn } from '@queuebox/core';
import { loadConfig, type LoadConfigOptions } from '@queuebox/config';
import { runMigrations, tableNamesFrom } from '@queuebox/postgres';
import { createOutbox, enqueue, enqueueMany, type OutboxMessage } from '@queuebox/outbox';
import {
  defaultRetryPolicy,
  fromMssql,
  fromPg,
  fromPostgresJs,
  InboxWorker,
  inboxSql,
  retryAfter,
  type InboxHandler,
  type InboxMessage,
} from '@queuebox/inbox';
import { drizzle } from 'drizzle-orm/node-postgres';
import knex from 'knex';
import { Kysely, PostgresDialect } from 'kysely';
import mssql from 'mssql';
import pg from 'pg';
import postgres from 'postgres';

const sql = postgres('postgres://localhost/app');
const pool = new pg.Pool();
const mssqlPool = new mssql.ConnectionPool({ server: 'db', requestTimeout: 30_000 });
const message: OutboxMessage = { topic: 'order.created', key: 'k', payload: { n: 1 } };
const column: OutboxColumn = 'topic';
const options: LoadConfigOptions = { env: {} };

export async function writes(): Promise<string[]> {
  const ids: string[] = [];
  ids.push(await sql.begin((tx) => enqueue(tx, message)));
  ids.push(await enqueue(sql, { topic: 't', payloadJson: '{"n":12345678901234567890}' }));
  const client = await pool.connect();
  ids.push(...(await enqueueMany(client, [message, message])));
  ids.push(await knex({ client: 'pg' }).transaction((trx) => enqueue(trx, message)));
  ids.push(await drizzle(pool).transaction((tx) => enqueue(tx, message)));
  const kysely = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  ids.push(await kysely.transaction().execute((trx) => enqueue(trx, message)));
  ids.push(await createOutbox({ schema: { table: 'app_outbox', columns: { [column]: 'c' } } }).enqueue(sql, message));
  // @ts-expect-error QueueBox writes attempt, never the application
  await enqueue(sql, { topic: 't', payload: 1, attempt: 1 });
  // @ts-expect-error one of payload and payloadJson
  await enqueue(sql, { topic: 't', payload: 1, payloadJson: '1' });
  return ids;
}

const handler: InboxHandler = async (m: InboxMessage, tx, signal) => {
  if (signal.aborted) return;
  const result = await tx.query('SELECT $1::text AS id', [m.id]);
  console.log(result.rowCount, m.payload, m.headers['x-tenant'], sanitize('password=x'));
};
const policy = defaultRetryPolicy({ maxAttempts: 3 });
export const workers = [
  new InboxWorker(fromPg(pool), { source: 'orders', retryPolicy: (m, f) => (f ? policy(m, f) : retryAfter(10)) }),
  new InboxWorker(fromPostgresJs(sql), { source: 'orders', strictAggregateOrder: true }),
  new InboxWorker(fromMssql(mssql, mssqlPool), { source: 'orders', dialect: 'sqlserver' }),
  new InboxWorker(fromMssql(mssqlPool), { source: 'orders', dialect: 'sqlserver' }),
];
export const run = () => workers[0]!.run(handler, new AbortController().signal);
export const text: string = inboxSql('postgresql').claim.text + inboxSql('sqlserver').claim.text;
export const migrate = () => runMigrations(sql, { logger: { debug() {}, info() {}, warn() {}, error() {}, child() { return this; } } });
export { loadConfig, tableNamesFrom, options };
`;

/** Loads every declaration file of the five packages (and what they import), with no library check skipped. */
const DECLARATIONS = `
export type * as core from '@queuebox/core';
export type * as config from '@queuebox/config';
export type * as postgres from '@queuebox/postgres';
export type * as outbox from '@queuebox/outbox';
export type * as inbox from '@queuebox/inbox';
`;
