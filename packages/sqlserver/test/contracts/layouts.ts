/**
 * The two table layouts of every SQL Server contract run, as on PostgreSQL: the reference schema
 * from the bundled migrations, and the same schema with every table and column renamed (spec
 * §3.6), in mixed case, so an identifier left unquoted anywhere fails the run.
 */
import {
  DEFAULT_INBOX_COLUMNS,
  DEFAULT_OUTBOX_COLUMNS,
  silentLogger,
  type DatabaseConfig,
  type InboxColumn,
  type OutboxColumn,
} from '@queuebox/core';
import { runMigrations, type SqlServerPool } from '@queuebox/sqlserver';
import { RENAMED_NAMES, type Layout } from '@queuebox/testing/contracts';

/** Migrates the empty database, then renames it for `renamed tables`; returns the mapping. */
export async function createLayout(
  pool: SqlServerPool,
  base: DatabaseConfig,
  layout: Layout,
): Promise<DatabaseConfig> {
  await runMigrations(pool, { logger: silentLogger });
  if (layout === 'default tables') return base;
  await pool.transaction(async (session) => {
    const rename = (text: string) => session.run({ text, params: [] });
    for (const [key, to] of Object.entries(RENAMED_NAMES.columnMapping.outbox))
      await rename(
        `EXEC sp_rename N'outbox.[${DEFAULT_OUTBOX_COLUMNS[key as OutboxColumn]}]', N'${to}', N'COLUMN'`,
      );
    for (const [key, to] of Object.entries(RENAMED_NAMES.columnMapping.inbox))
      await rename(
        `EXEC sp_rename N'inbox.[${DEFAULT_INBOX_COLUMNS[key as InboxColumn]}]', N'${to}', N'COLUMN'`,
      );
    await rename(`EXEC sp_rename N'outbox', N'${RENAMED_NAMES.outboxTableName}'`);
    await rename(`EXEC sp_rename N'inbox', N'${RENAMED_NAMES.inboxTableName}'`);
  });
  return { ...base, ...RENAMED_NAMES };
}
