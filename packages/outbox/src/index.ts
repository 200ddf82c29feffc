/**
 * @queuebox/outbox: writes QueueBox outbox rows inside the application's own transaction, on its
 * own database handle (postgres.js, pg, knex, drizzle or kysely on PostgreSQL; an mssql
 * transaction on SQL Server), so the business change and
 * the message commit or roll back together (spec §4.7). It checks each message against what an
 * application may write and returns the row ids.
 *
 * It imports no database driver (the caller's client is a peer), opens no connection, starts
 * no transaction and delivers nothing: a running QueueBox delivers the committed rows.
 */
export { enqueue, enqueueMany, createOutbox, type Outbox, type OutboxOptions } from './enqueue.js';
export type {
  OutboxMessage,
  OutboxMessageFields,
  OutboxValuePayload,
  OutboxTextPayload,
} from './message.js';
export type { OutboxSchema } from './schema.js';
export type {
  OutboxHandle,
  PostgresJsHandle,
  PgClientHandle,
  KnexHandle,
  DrizzleHandle,
  KyselyHandle,
  MssqlTransactionHandle,
} from './handles.js';
