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
    for (const [key, to] of Object.entries(RENAMED_OUTBOX_COLUMNS))
      await rename(
        `EXEC sp_rename N'outbox.[${DEFAULT_OUTBOX_COLUMNS[key as OutboxColumn]}]', N'${to}', N'COLUMN'`,
      );
    for (const [key, to] of Object.entries(RENAMED_INBOX_COLUMNS))
      await rename(
        `EXEC sp_rename N'inbox.[${DEFAULT_INBOX_COLUMNS[key as InboxColumn]}]', N'${to}', N'COLUMN'`,
      );
    await rename(`EXEC sp_rename N'outbox', N'${RENAMED_OUTBOX}'`);
    await rename(`EXEC sp_rename N'inbox', N'${RENAMED_INBOX}'`);
  });
  return {
    ...base,
    outboxTableName: RENAMED_OUTBOX,
    inboxTableName: RENAMED_INBOX,
    columnMapping: { outbox: RENAMED_OUTBOX_COLUMNS, inbox: RENAMED_INBOX_COLUMNS },
  };
}
