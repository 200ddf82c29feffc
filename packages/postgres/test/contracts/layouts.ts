/**
 * The two table layouts of @queuebox/testing applied on PostgreSQL: the reference schema from the
 * bundled migrations, and the same schema renamed with ALTER TABLE.
 */
import { DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS, silentLogger } from '@queuebox/core';
import { runMigrations, tableNamesFrom, type TableNames } from '@queuebox/postgres';
import type postgres from 'postgres';
import { RENAMED_NAMES, type Layout } from '@queuebox/testing/contracts';
import { databaseConfig } from '../support.js';

/** Migrates an empty database to the reference schema, then renames it for `renamed tables`. */
export async function createLayout(sql: postgres.Sql, layout: Layout): Promise<TableNames> {
  await runMigrations(sql, { logger: silentLogger });
  if (layout === 'default tables') return tableNamesFrom(databaseConfig());
  const renamed = tableNamesFrom({ ...databaseConfig(), ...RENAMED_NAMES });
  const original = tableNamesFrom(databaseConfig());
  await sql.begin(async (tx) => {
    await tx.unsafe(`ALTER TABLE ${original.outbox} RENAME TO ${renamed.outbox}`);
    await tx.unsafe(`ALTER TABLE ${original.inbox} RENAME TO ${renamed.inbox}`);
    for (const key of Object.keys(
      DEFAULT_OUTBOX_COLUMNS,
    ) as (keyof typeof DEFAULT_OUTBOX_COLUMNS)[])
      await tx.unsafe(
        `ALTER TABLE ${renamed.outbox} RENAME COLUMN ${original.outboxColumns[key]} TO ${renamed.outboxColumns[key]}`,
      );
    for (const key of Object.keys(DEFAULT_INBOX_COLUMNS) as (keyof typeof DEFAULT_INBOX_COLUMNS)[])
      await tx.unsafe(
        `ALTER TABLE ${renamed.inbox} RENAME COLUMN ${original.inboxColumns[key]} TO ${renamed.inboxColumns[key]}`,
      );
  });
  return renamed;
}
