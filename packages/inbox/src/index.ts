/**
 * @queuebox/inbox: the pull worker for Node services (spec §9), API-compatible with the
 * reference TypeScript client, so switching is a change of import. It claims the messages of
 * one pull source, runs the handler in a transaction on its own connection, completes the
 * message in that same transaction, renews leases, applies the retry policy and sanitizes every
 * error it writes or logs.
 *
 * It imports no driver (`fromPg(pool)`, `fromPostgresJs(sql)` and `fromMssql(mssql, pool)` wrap
 * the caller's pool), writes no schema (it needs QueueBox's schema V10 or later) and does not run
 * QueueBox. It speaks PostgreSQL and, with `dialect: 'sqlserver'`, SQL Server.
 */
export { InboxWorker, type InboxHandler } from './worker.js';
export {
  fromPg,
  fromPostgresJs,
  type InboxConnection,
  type InboxConnectionSource,
  type InboxQueryResult,
  type InboxTransaction,
  type PgPoolLike,
  type PgClientLike,
  type PostgresJsLike,
  type PostgresJsReservedLike,
} from './connections.js';
export {
  fromMssql,
  type MssqlModuleLike,
  type MssqlPoolLike,
  type MssqlRequestLike,
  type MssqlResultLike,
  type MssqlTransactionLike,
} from './mssql.js';
export {
  resolveOptions,
  type InboxOptions,
  type InboxLogger,
  type ResolvedInboxOptions,
  type SqlDialect,
} from './options.js';
export {
  defaultRetryPolicy,
  retryAfter,
  deadLetter,
  type InboxRetryPolicy,
  type InboxFailureAction,
  type DefaultRetryPolicyOptions,
} from './retry-policy.js';
export { sanitize, sanitizeError, MAX_ERROR_LENGTH } from './sanitize.js';
export { defaultSchema, type InboxSchema } from './schema.js';
export { inboxSql } from './inbox-sql.js';
export type { InboxStatement, InboxStatements } from './sql/statement.js';
export type { InboxMessage } from './message.js';
