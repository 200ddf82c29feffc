import {
  DEFAULT_INBOX_COLUMNS,
  DEFAULT_OUTBOX_COLUMNS,
  silentLogger,
  type InboxColumn,
  type OutboxColumn,
} from '@queuebox/core';
import type postgres from 'postgres';
import { quoteIdentifier } from '../src/schema/identifiers.js';
import { runMigrations } from '../src/migrator/migrate.js';
import type { TableNames } from '../src/schema/table-names.js';

/**
 * Test support for the claim-plan test: the
 * reference schema from the bundled migrations, optionally renamed the way an operator maps a
 * custom table (spec §3.6), and the TableNames that go with it. The renamed variant mixes upper
 * and lower case, so an unquoted identifier anywhere in a statement fails the tests.
 */
export type TableVariant = 'default' | 'renamed';

const INBOX_RENAMED: Record<InboxColumn, string> = {
  id: 'MsgId',
  source: 'Src',
  idempotencyKey: 'idem_Key',
  aggregateId: 'agg_Id',
  eventType: 'evt_Type',
  payload: 'Body',
  state: 'Status',
  createdAt: 'received_At',
  processedAt: 'done_At',
  claimedAt: 'taken_At',
  claimToken: 'taken_Token',
  leaseExpiresAt: 'lease_Until',
  correlationId: 'corr_Id',
  consumption: 'Mode',
  scheduledAt: 'due_At',
  attempt: 'Tries',
  lastError: 'last_Err',
  headers: 'Hdrs',
};

const OUTBOX_RENAMED: Record<OutboxColumn, string> = {
  id: 'OutId',
  topic: 'Subject',
  key: 'Order_Key',
  aggregateType: 'agg_Type',
  payload: 'Body',
  headers: 'Hdrs',
  state: 'Status',
  attempt: 'Tries',
  maxAttempts: 'max_Tries',
  scheduledAt: 'due_At',
  createdAt: 'made_At',
  updatedAt: 'changed_At',
  claimedAt: 'taken_At',
  claimToken: 'taken_Token',
  leaseExpiresAt: 'lease_Until',
  lastError: 'last_Err',
  sequence: 'Seq',
};

export interface TestTables {
  readonly names: TableNames;
  /** Unquoted names, for assertions and for the advisory lock key. */
  readonly inbox: string;
  readonly outbox: string;
  readonly inboxColumns: Record<InboxColumn, string>;
  readonly outboxColumns: Record<OutboxColumn, string>;
  /** `SELECT <every column AS its default name> FROM <inbox>`: wrap it to filter by default names. */
  readonly inboxRows: string;
  readonly outboxRows: string;
}

/** Migrates an empty database to the reference schema, then renames it for `renamed`. */
export async function createTestTables(
  sql: postgres.Sql,
  variant: TableVariant,
): Promise<TestTables> {
  await runMigrations(sql, { logger: silentLogger });
  if (variant === 'default')
    return tablesOf('inbox', 'outbox', DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS);
  const inbox = 'Inbox_Renamed';
  const outbox = 'Outbox_Renamed';
  await sql.begin(async (tx) => {
    await renameTable(tx, 'inbox', inbox, DEFAULT_INBOX_COLUMNS, INBOX_RENAMED);
    await renameTable(tx, 'outbox', outbox, DEFAULT_OUTBOX_COLUMNS, OUTBOX_RENAMED);
  });
  return tablesOf(inbox, outbox, INBOX_RENAMED, OUTBOX_RENAMED);
}

async function renameTable<K extends string>(
  tx: postgres.TransactionSql,
  from: string,
  to: string,
  before: Record<K, string>,
  after: Record<K, string>,
): Promise<void> {
  await tx.unsafe(
    `ALTER TABLE ${quoteIdentifier(from, 'from')} RENAME TO ${quoteIdentifier(to, 'to')}`,
  );
  for (const key of Object.keys(before) as K[]) {
    await tx.unsafe(
      `ALTER TABLE ${quoteIdentifier(to, 'to')} RENAME COLUMN ${quoteIdentifier(before[key], key)} TO ${quoteIdentifier(after[key], key)}`,
    );
  }
}

function tablesOf(
  inbox: string,
  outbox: string,
  inboxColumns: Record<InboxColumn, string>,
  outboxColumns: Record<OutboxColumn, string>,
): TestTables {
  const quoteAll = <K extends string>(columns: Record<K, string>): Record<K, string> =>
    Object.fromEntries(
      Object.entries<string>(columns).map(([k, v]) => [k, quoteIdentifier(v, k)]),
    ) as Record<K, string>;
  return {
    names: {
      inbox: quoteIdentifier(inbox, 'inbox'),
      outbox: quoteIdentifier(outbox, 'outbox'),
      inboxColumns: quoteAll(inboxColumns),
      outboxColumns: quoteAll(outboxColumns),
    },
    inbox,
    outbox,
    inboxColumns,
    outboxColumns,
    inboxRows: selectAs(inbox, inboxColumns, DEFAULT_INBOX_COLUMNS),
    outboxRows: selectAs(outbox, outboxColumns, DEFAULT_OUTBOX_COLUMNS),
  };
}

function selectAs<K extends string>(
  table: string,
  actual: Record<K, string>,
  defaults: Record<K, string>,
): string {
  const list = (Object.keys(defaults) as K[])
    .map((key) => `${quoteIdentifier(actual[key], key)} AS ${quoteIdentifier(defaults[key], key)}`)
    .join(', ');
  return `SELECT ${list} FROM ${quoteIdentifier(table, 'table')}`;
}
