/**
 * The two table layouts of @queuebox/testing applied on PostgreSQL: the reference schema from the
 * bundled migrations, and the same schema renamed with ALTER TABLE.
 */
import {
  DEFAULT_INBOX_COLUMNS,
  DEFAULT_OUTBOX_COLUMNS,
  silentLogger,
  type InboxColumn,
  type OutboxColumn,
} from '@queuebox/core';
import { quoteIdentifier, runMigrations, type TableNames } from '@queuebox/postgres';
import type postgres from 'postgres';
import {
  LAYOUTS,
  RENAMED_INBOX,
  RENAMED_INBOX_COLUMNS,
  RENAMED_OUTBOX,
  RENAMED_OUTBOX_COLUMNS,
  type Layout,
} from '@queuebox/testing/contracts';

export { LAYOUTS, type Layout };

/** Migrates an empty database to the reference schema, then renames it for `renamed tables`. */
export async function createLayout(sql: postgres.Sql, layout: Layout): Promise<TableNames> {
  await runMigrations(sql, { logger: silentLogger });
  if (layout === 'default tables')
    return namesOf('outbox', 'inbox', DEFAULT_OUTBOX_COLUMNS, DEFAULT_INBOX_COLUMNS);
  await sql.begin(async (tx) => {
    await rename(tx, 'outbox', RENAMED_OUTBOX, DEFAULT_OUTBOX_COLUMNS, RENAMED_OUTBOX_COLUMNS);
    await rename(tx, 'inbox', RENAMED_INBOX, DEFAULT_INBOX_COLUMNS, RENAMED_INBOX_COLUMNS);
  });
  return namesOf(RENAMED_OUTBOX, RENAMED_INBOX, RENAMED_OUTBOX_COLUMNS, RENAMED_INBOX_COLUMNS);
}

async function rename<K extends string>(
  tx: postgres.TransactionSql,
  from: string,
  to: string,
  before: Readonly<Record<K, string>>,
  after: Readonly<Record<K, string>>,
): Promise<void> {
  await tx.unsafe(
    `ALTER TABLE ${quoteIdentifier(from, from)} RENAME TO ${quoteIdentifier(to, to)}`,
  );
  for (const key of Object.keys(before) as K[]) {
    await tx.unsafe(
      `ALTER TABLE ${quoteIdentifier(to, to)} RENAME COLUMN ${quoteIdentifier(before[key], key)} TO ${quoteIdentifier(after[key], key)}`,
    );
  }
}

function namesOf(
  outbox: string,
  inbox: string,
  outboxColumns: Readonly<Record<OutboxColumn, string>>,
  inboxColumns: Readonly<Record<InboxColumn, string>>,
): TableNames {
  const quoteAll = <K extends string>(columns: Readonly<Record<K, string>>): Record<K, string> =>
    Object.fromEntries(
      Object.entries<string>(columns).map(([key, name]) => [key, quoteIdentifier(name, key)]),
    ) as Record<K, string>;
  return {
    outbox: quoteIdentifier(outbox, 'outbox'),
    inbox: quoteIdentifier(inbox, 'inbox'),
    outboxColumns: quoteAll(outboxColumns),
    inboxColumns: quoteAll(inboxColumns),
  };
}
