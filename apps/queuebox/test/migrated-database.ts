import {
  DEFAULT_INBOX_COLUMNS,
  DEFAULT_OUTBOX_COLUMNS,
  silentLogger,
  type DatabaseConfig,
} from '@queuebox/core';
import { runMigrations, tableNamesFrom, type TableNames } from '@queuebox/postgres';
import { createFreshDatabase, type FreshDatabase } from '@queuebox/testing';

/**
 * A fresh database with the bundled migrations applied, and the table names of its default
 * schema: what the suites that drive a service's loop on the real PostgreSQL stores start from.
 */
export async function createMigratedDatabase(
  pgUrl: string,
  prefix?: string,
): Promise<{ db: FreshDatabase; tables: TableNames }> {
  const db = await createFreshDatabase(pgUrl, prefix);
  await runMigrations(db.sql, { logger: silentLogger });
  const tables = tableNamesFrom({
    outboxTableName: 'outbox',
    inboxTableName: 'inbox',
    columnMapping: { outbox: DEFAULT_OUTBOX_COLUMNS, inbox: DEFAULT_INBOX_COLUMNS },
  } as DatabaseConfig);
  return { db, tables };
}
