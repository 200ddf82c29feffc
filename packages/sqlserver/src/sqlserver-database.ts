import {
  withTimeout,
  type Database,
  type DatabaseConfig,
  type DatabaseDeps,
  type InboxStore,
  type MigrateOptions,
  type MigrationReport,
  type OutboxStore,
  type RetentionStore,
  type ConsoleStore,
} from '@queuebox/core';
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
  // One store each: the inbox store groups concurrent writes, which only works when every
  // caller shares the same instance.
  let outbox: OutboxStore | undefined;
  let inbox: InboxStore | undefined;
  return {
    migrate(options: MigrateOptions = {}): Promise<MigrationReport> {
      return runMigrations(pool, { ...options, logger: deps.logger, secrets });
    },
    checkSchema(): Promise<void> {
      return checkSchema(pool, database);
    },
    async ping(timeoutMs: number): Promise<boolean> {
      try {
        await withTimeout(
          pool.withSession((session) => session.run({ text: 'SELECT 1', params: [] })),
          timeoutMs,
          () => new Error('ping timed out'),
        );
        return true;
      } catch {
        // Readiness only needs up or down; the reason is the health check's to report.
        return false;
      }
    },
    outboxStore(): OutboxStore {
      outbox ??= createSqlServerOutboxStore(pool, tables, database.outboxTableName, deps.clock);
      return outbox;
    },
    inboxStore(): InboxStore {
      inbox ??= createSqlServerInboxStore(pool, tables, database.inboxTableName, deps.clock, {
        connectionTimeoutMs: database.connectionTimeoutMs,
      });
      return inbox;
    },
    retentionStore(): RetentionStore {
      return createSqlServerRetentionStore(pool, tables);
    },
    consoleStore(): ConsoleStore {
      return createSqlServerConsoleStore(pool, tables, deps.clock);
    },
    close(): Promise<void> {
      return pool.close();
    },
  };
}
