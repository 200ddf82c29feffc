import type { Database, MigrateOptions, MigrationReport } from '../ports/database.js';
import type { ConsoleStore } from '../ports/console-store.js';
import type { InboxStore } from '../ports/inbox-store.js';
import type { OutboxStore } from '../ports/outbox-store.js';
import type { RetentionStore } from '../ports/retention-store.js';
import { withTimeout } from './with-timeout.js';

/** What a dialect builds its `Database` from: its migrator, guard, `SELECT 1` and stores. */
export interface SqlDatabaseParts {
  migrate(options: MigrateOptions): Promise<MigrationReport>;
  checkSchema(): Promise<void>;
  /** Borrows a connection and runs `SELECT 1` on it. */
  selectOne(): Promise<unknown>;
  outboxStore(): OutboxStore;
  inboxStore(): InboxStore;
  retentionStore(): RetentionStore;
  consoleStore(): ConsoleStore;
  close(): Promise<void>;
}

/** The `Database` port as every dialect serves it, over the dialect's parts. */
export function sqlDatabase(parts: SqlDatabaseParts): Database {
  // One store each: the inbox store groups concurrent writes, which only works when every
  // caller shares the same instance.
  let outbox: OutboxStore | undefined;
  let inbox: InboxStore | undefined;
  return {
    migrate: (options: MigrateOptions = {}) => parts.migrate(options),
    checkSchema: () => parts.checkSchema(),
    async ping(timeoutMs: number): Promise<boolean> {
      try {
        await withTimeout(parts.selectOne(), timeoutMs, () => new Error('ping timed out'));
        return true;
      } catch {
        // Readiness only needs up or down; the reason is the health check's to report.
        return false;
      }
    },
    outboxStore(): OutboxStore {
      outbox ??= parts.outboxStore();
      return outbox;
    },
    inboxStore(): InboxStore {
      inbox ??= parts.inboxStore();
      return inbox;
    },
    retentionStore: () => parts.retentionStore(),
    consoleStore: () => parts.consoleStore(),
    close: () => parts.close(),
  };
}
