/** What the consumer directories run and type-check; plain text, written into each install. */

/** QueueBox's tables (through the installed @queuebox/postgres), the examples' own tables, and pull rows. */
export const PREPARE = `
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

/**
 * The TypeScript consumer, one file per driver (each also run through `common.ts`), so an install
 * that varies one driver type-checks only the code that uses it; the base install checks all.
 */
export const CONSUMER_FILES = {
  'common.ts': `
import { sanitize, type OutboxColumn } from '@queuebox/core';
import { loadConfig, type LoadConfigOptions } from '@queuebox/config';
import { tableNamesFrom } from '@queuebox/postgres';
import type { OutboxMessage } from '@queuebox/outbox';
import { defaultRetryPolicy, inboxSql, retryAfter, type InboxHandler, type InboxMessage, type InboxRetryPolicy } from '@queuebox/inbox';

export const message: OutboxMessage = { topic: 'order.created', key: 'k', payload: { n: 1 } };
export const column: OutboxColumn = 'topic';
export const options: LoadConfigOptions = { env: {} };
export const handler: InboxHandler = async (m: InboxMessage, tx, signal) => {
  if (signal.aborted) return;
  const result = await tx.query('SELECT $1::text AS id', [m.id]);
  console.log(result.rowCount, m.payload, m.headers['x-tenant'], sanitize('password=x'));
};
const policy = defaultRetryPolicy({ maxAttempts: 3 });
export const retryPolicy: InboxRetryPolicy = (m, f) => (f ? policy(m, f) : retryAfter(10));
export const text: string = inboxSql('postgresql').claim.text + inboxSql('sqlserver').claim.text;
export { loadConfig, tableNamesFrom };
`,
  'postgres.ts': `
import { runMigrations } from '@queuebox/postgres';
import { createOutbox, enqueue } from '@queuebox/outbox';
import { fromPostgresJs, InboxWorker } from '@queuebox/inbox';
import postgres from 'postgres';
import { column, handler, message } from './common.js';

const sql = postgres('postgres://localhost/app');
export async function writes(): Promise<string[]> {
  const ids: string[] = [];
  ids.push(await sql.begin((tx) => enqueue(tx, message)));
  ids.push(await enqueue(sql, { topic: 't', payloadJson: '{"n":12345678901234567890}' }));
  ids.push(await createOutbox({ schema: { table: 'app_outbox', columns: { [column]: 'c' } } }).enqueue(sql, message));
  // @ts-expect-error QueueBox writes attempt, never the application
  await enqueue(sql, { topic: 't', payload: 1, attempt: 1 });
  // @ts-expect-error one of payload and payloadJson
  await enqueue(sql, { topic: 't', payload: 1, payloadJson: '1' });
  return ids;
}
export const worker = new InboxWorker(fromPostgresJs(sql), { source: 'orders', strictAggregateOrder: true });
export const run = () => worker.run(handler, new AbortController().signal);
export const migrate = () => runMigrations(sql, { logger: { debug() {}, info() {}, warn() {}, error() {}, child() { return this; } } });
`,
  'pg.ts': `
import { enqueue, enqueueMany } from '@queuebox/outbox';
import { fromPg, InboxWorker } from '@queuebox/inbox';
import pg from 'pg';
import { handler, message, retryPolicy } from './common.js';

const pool = new pg.Pool();
export async function writes(): Promise<string[]> {
  const client = await pool.connect();
  return [await enqueue(client, message), ...(await enqueueMany(client, [message, message]))];
}
export const worker = new InboxWorker(fromPg(pool), { source: 'orders', retryPolicy });
export const run = () => worker.run(handler, new AbortController().signal);
`,
  'knex.ts': `
import { enqueue } from '@queuebox/outbox';
import knex from 'knex';
import { message } from './common.js';

export const write = () => knex({ client: 'pg' }).transaction((trx) => enqueue(trx, message));
`,
  'drizzle-orm.ts': `
import { enqueue } from '@queuebox/outbox';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { message } from './common.js';

export const write = () => drizzle(new pg.Pool()).transaction((tx) => enqueue(tx, message));
`,
  'kysely.ts': `
import { enqueue } from '@queuebox/outbox';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { message } from './common.js';

const kysely = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool() }) });
export const write = () => kysely.transaction().execute((trx) => enqueue(trx, message));
`,
  'mssql.ts': `
import { fromMssql, InboxWorker } from '@queuebox/inbox';
import mssql from 'mssql';

const mssqlPool = new mssql.ConnectionPool({ server: 'db', requestTimeout: 30_000 });
export const workers = [
  new InboxWorker(fromMssql(mssql, mssqlPool), { source: 'orders', dialect: 'sqlserver' }),
  new InboxWorker(fromMssql(mssqlPool), { source: 'orders', dialect: 'sqlserver' }),
];
`,
} as const;

/** Loads every declaration file of the five packages (and what they import), with no library check skipped. */
export const DECLARATIONS = `
export type * as core from '@queuebox/core';
export type * as config from '@queuebox/config';
export type * as postgres from '@queuebox/postgres';
export type * as outbox from '@queuebox/outbox';
export type * as inbox from '@queuebox/inbox';
`;
