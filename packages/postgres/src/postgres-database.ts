import { withTimeout } from '@queuebox/core';
import type {
  DatabaseConfig,
  Database,
  DatabaseDeps,
  ConsoleStore,
  InboxStore,
  MigrateOptions,
  MigrationReport,
  OutboxStore,
  RetentionStore,
} from '@queuebox/core';
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
  // One store each: the inbox store groups concurrent writes, which only works when every
  // caller shares the same instance.
  let outbox: OutboxStore | undefined;
  let inbox: InboxStore | undefined;
  return {
    migrate(options: MigrateOptions = {}): Promise<MigrationReport> {
      return runMigrations(sql, { ...options, logger: deps.logger, secrets });
    },
    checkSchema(): Promise<void> {
      return checkSchema(sql, database);
    },
    async ping(timeoutMs: number): Promise<boolean> {
      try {
        await withTimeout(sql`SELECT 1`.execute(), timeoutMs, () => new Error('ping timed out'));
        return true;
      } catch {
        // Readiness only needs up or down; the reason is the health check's to report.
        return false;
      }
    },
    outboxStore(): OutboxStore {
      outbox ??= createPostgresOutboxStore(sql, tables, deps.clock);
      return outbox;
    },
    inboxStore(): InboxStore {
      inbox ??= createPostgresInboxStore(sql, tables, deps.clock);
      return inbox;
    },
    retentionStore(): RetentionStore {
      return createPostgresRetentionStore(sql, tables, deps.clock);
    },
    consoleStore(): ConsoleStore {
      return createPostgresConsoleStore(sql, tables, deps.clock);
    },
    async close(): Promise<void> {
      await sql.end({ timeout: 5 });
    },
  };
}
