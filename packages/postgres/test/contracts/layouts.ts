/**
 * The two table layouts every PostgreSQL contract run uses: the reference schema from the bundled
 * migrations, and the same schema with every table and column renamed the way an operator maps a
 * custom table (spec §3.6). The renamed names mix upper and lower case, so an identifier left
 * unquoted anywhere in a statement fails the run.
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

export type Layout = 'default tables' | 'renamed tables';
export const LAYOUTS: readonly Layout[] = ['default tables', 'renamed tables'];

const RENAMED_OUTBOX = 'My_Outbox';
const RENAMED_INBOX = 'Inbox_Renamed';

const RENAMED_OUTBOX_COLUMNS: Record<OutboxColumn, string> = {
  id: 'msg_Id',
  topic: 'msg_topic',
  key: 'Partition_Key',
  aggregateType: 'msg_aggregate_type',
  payload: 'msg_body',
  headers: 'msg_headers',
  state: 'Msg_State',
  attempt: 'msg_attempt',
  maxAttempts: 'msg_max_attempts',
  scheduledAt: 'msg_due_at',
  createdAt: 'msg_created_at',
  updatedAt: 'msg_updated_at',
  claimedAt: 'msg_claimed_at',
  claimToken: 'msg_claim_token',
  leaseExpiresAt: 'msg_lease_until',
  lastError: 'msg_last_error',
  sequence: 'msg_Seq',
};

const RENAMED_INBOX_COLUMNS: Record<InboxColumn, string> = {
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
