/**
 * The two table layouts every adapter's contract run uses: the reference schema, and the same
 * schema with every table and column renamed the way an operator maps a custom table (spec
 * §3.6). The renamed names mix upper and lower case, so an identifier left unquoted anywhere in
 * a statement fails the run. Each adapter's own `test/contracts/layouts.ts` applies them in its
 * dialect.
 */
import type { InboxColumn, OutboxColumn } from '@queuebox/core';

export type Layout = 'default tables' | 'renamed tables';
export const LAYOUTS: readonly Layout[] = ['default tables', 'renamed tables'];

export const RENAMED_OUTBOX = 'My_Outbox';
export const RENAMED_INBOX = 'Inbox_Renamed';

export const RENAMED_OUTBOX_COLUMNS: Record<OutboxColumn, string> = {
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

export const RENAMED_INBOX_COLUMNS: Record<InboxColumn, string> = {
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

/** The renamed layout as the names of a `database` block (spec §3.6). */
export const RENAMED_NAMES = {
  outboxTableName: RENAMED_OUTBOX,
  inboxTableName: RENAMED_INBOX,
  columnMapping: { outbox: RENAMED_OUTBOX_COLUMNS, inbox: RENAMED_INBOX_COLUMNS },
} as const;
