import { sqlDatabase, type Database, type DatabaseConfig, type DatabaseDeps } from '@queuebox/core';
import type postgres from 'postgres';
import { createPostgresConsoleStore } from './console/console-store.js';
import { createPostgresInboxStore } from './inbox/inbox-store.js';
import { runMigrations } from './migrator/migrate.js';
import { createPostgresOutboxStore } from './outbox/outbox-store.js';
import { createPostgresRetentionStore } from './retention/retention-store.js';
import { checkSchema } from './schema/schema-guard.js';
import type { TableNames } from './schema/table-names.js';

/** The `Database` port on one postgres.js pool; the pool is this object's to close. */
export function createPostgresDatabase(
  sql: postgres.Sql,
  database: DatabaseConfig,
  tables: TableNames,
  deps: DatabaseDeps,
): Database {
  const secrets = [database.password.reveal()];
  return sqlDatabase({
    migrate: (options) => runMigrations(sql, { ...options, logger: deps.logger, secrets }),
    checkSchema: () => checkSchema(sql, database),
    selectOne: () => sql`SELECT 1`.execute(),
    outboxStore: () => createPostgresOutboxStore(sql, tables, deps.clock),
    inboxStore: () => createPostgresInboxStore(sql, tables, deps.clock),
    retentionStore: () => createPostgresRetentionStore(sql, tables, deps.clock),
    consoleStore: () => createPostgresConsoleStore(sql, tables, deps.clock),
    async close() {
      await sql.end({ timeout: 5 });
    },
  });
}
