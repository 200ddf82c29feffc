import type { Consumption, Headers, InboxState, RelayClaimedMessage } from '@queuebox/core';

/** A row as the relay claim returns it (the aliases of ROW_ALIASES in inbox-relay-sql.ts). */
export interface ClaimedRow {
  readonly id: string;
  readonly source: string;
  readonly idempotency_key: string;
  readonly aggregate_id: string | null;
  readonly event_type: string | null;
  readonly headers: Headers | null;
  readonly correlation_id: string | null;
  readonly consumption: Consumption;
  readonly state: InboxState;
  readonly created_at: Date;
  readonly scheduled_at: Date;
  readonly attempt: number;
  readonly claim_token: string;
}

export function claimedMessage(row: ClaimedRow): RelayClaimedMessage {
  return {
    id: row.id,
    source: row.source,
    idempotencyKey: row.idempotency_key,
    aggregateId: row.aggregate_id,
    eventType: row.event_type,
    // The column is NOT NULL since V10, but a hand-made custom table may allow NULL.
    headers: row.headers ?? {},
    correlationId: row.correlation_id,
    consumption: row.consumption,
    state: row.state,
    createdAt: row.created_at,
    scheduledAt: row.scheduled_at,
    attempt: row.attempt,
    claimToken: row.claim_token,
  };
}

/** The name inside a quoted identifier: the relay lock key hashes the name as configured. */
export function unquoted(quotedIdentifier: string): string {
  // TableNames holds `"name"`; the identifier rule refuses `"` inside, so this is exact.
  return quotedIdentifier.slice(1, -1);
}
