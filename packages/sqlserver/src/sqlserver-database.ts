import { sqlDatabase, type Database, type DatabaseConfig, type DatabaseDeps } from '@queuebox/core';
import { createSqlServerConsoleStore } from './console/console-store.js';
import type { SqlServerPool } from './connection/pool.js';
import { runMigrations } from './migrator/migrate.js';
import { checkSchema } from './schema/schema-guard.js';
import { tableNamesFrom } from './schema/table-names.js';
import { createSqlServerOutboxStore } from './outbox/outbox-store.js';
import { createSqlServerInboxStore } from './inbox/inbox-store.js';
import { createSqlServerRetentionStore } from './retention/retention-store.js';

/** The `Database` port on one SQL Server pool; the pool is this object's to close. */
export function createSqlServerDatabase(
  pool: SqlServerPool,
  database: DatabaseConfig,
  deps: DatabaseDeps,
): Database {
  const secrets = [database.password.reveal()];
  const tables = tableNamesFrom(database);
  return sqlDatabase({
    migrate: (options) => runMigrations(pool, { ...options, logger: deps.logger, secrets }),
    checkSchema: () => checkSchema(pool, database),
    selectOne: () => pool.withSession((session) => session.run({ text: 'SELECT 1', params: [] })),
    outboxStore: () =>
      createSqlServerOutboxStore(pool, tables, database.outboxTableName, deps.clock),
    inboxStore: () =>
      createSqlServerInboxStore(pool, tables, database.inboxTableName, deps.clock, {
        connectionTimeoutMs: database.connectionTimeoutMs,
      }),
    retentionStore: () => createSqlServerRetentionStore(pool, tables),
    consoleStore: () => createSqlServerConsoleStore(pool, tables, deps.clock),
    close: () => pool.close(),
  });
}
