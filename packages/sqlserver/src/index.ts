/**
 * @queuebox/sqlserver: QueueBox on SQL Server through tedious. It maps the `jdbc:sqlserver://`
 * URL onto tedious, keeps a small pool, waits for the database at start, applies the bundled
 * migrations V1..V11 with a Flyway-compatible history (so a database QueueBox 0.8.1 migrated is
 * accepted as it is), runs the schema guard, and builds the stores on the configured (validated,
 * quoted) table and column names.
 *
 * It does not decide when to migrate (the app does), does not validate configuration beyond the
 * identifiers and URL properties it puts into a connection or SQL, and never migrates renamed
 * tables. The `sqlserver-cdc` capture mode is the separate entry `@queuebox/sqlserver/capture`.
 */
import { afterWaiting, sqlDatabaseProvider, type DatabaseProvider } from '@queuebox/core';
import { connectionConfig } from './connection/connection-options.js';
import { createPool } from './connection/pool.js';
import { waitForDatabase } from './connection/wait-for-database.js';
import { tableNamesFrom } from './schema/table-names.js';
import { createSqlServerDatabase } from './sqlserver-database.js';

export {
  connectionConfig,
  encryptFrom,
  REQUEST_TIMEOUT_MS,
} from './connection/connection-options.js';
export { createPool, openConnection, type SqlServerPool } from './connection/pool.js';
export type { Session, StatementResult } from './connection/session.js';
export { waitForDatabase, type WaitForDatabaseOptions } from './connection/wait-for-database.js';
export { createSqlServerDatabase } from './sqlserver-database.js';
export {
  classifySqlServerError,
  sqlServerError,
  APP_LOCK_NOT_ACQUIRED,
  type SqlServerErrorClassification,
} from './classify-error.js';
export type { Param, ParamType, Statement } from './sql/statement.js';
export { migrations, type Migration } from './migrations/index.js';
export { runMigrations } from './migrator/migrate.js';
export { HISTORY_TABLE, BASELINE_DESCRIPTION, MIGRATION_LOCK } from './migrator/history-sql.js';
export { flywayChecksum } from '@queuebox/core';
export { checkSchema, requirementsOf } from './schema/schema-guard.js';
export { tableNamesFrom, type TableNames } from './schema/table-names.js';
export { IDENTIFIER_PATTERN, quoteIdentifier } from './schema/identifiers.js';
export { createSqlServerOutboxStore } from './outbox/outbox-store.js';
export { outboxStatements } from './outbox/outbox-statements.js';
export { outboxClaimLock } from './outbox/outbox-sql.js';
export { createSqlServerInboxStore, type SqlServerInboxStoreOptions } from './inbox/inbox-store.js';
export { inboxStatements } from './inbox/inbox-statements.js';
export { inboxClaimLock } from './inbox/inbox-relay-sql.js';
export { createSqlServerRetentionStore } from './retention/retention-store.js';

export const provider: DatabaseProvider = sqlDatabaseProvider({
  name: 'sqlserver',
  label: 'SQL Server',
  checks: [tableNamesFrom, connectionConfig],
  open(database, deps) {
    const pool = createPool(
      connectionConfig(database),
      database.poolSize,
      database.connectionTimeoutMs,
    );
    return afterWaiting(
      () =>
        waitForDatabase(pool, {
          startupTimeoutMs: database.startupTimeoutMs,
          attemptTimeoutMs: database.connectionTimeoutMs,
          logger: deps.logger,
          secrets: [database.password.reveal()],
        }),
      () => pool.close(),
      () => createSqlServerDatabase(pool, database, deps),
    );
  },
});
