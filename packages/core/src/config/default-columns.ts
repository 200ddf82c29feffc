import type { InboxColumn, OutboxColumn } from './app-config.js';

/** The reference's column names (spec §3.6): what an unmapped column is called. */
export const DEFAULT_OUTBOX_COLUMNS: Readonly<Record<OutboxColumn, string>> = {
  id: 'id',
  topic: 'topic',
  key: 'key',
  aggregateType: 'aggregate_type',
  payload: 'payload',
  headers: 'headers',
  state: 'state',
  attempt: 'attempt',
  maxAttempts: 'max_attempts',
  scheduledAt: 'scheduled_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  claimedAt: 'claimed_at',
  claimToken: 'claim_token',
  leaseExpiresAt: 'lease_expires_at',
  lastError: 'last_error',
  sequence: 'sequence',
};

export const DEFAULT_INBOX_COLUMNS: Readonly<Record<InboxColumn, string>> = {
  id: 'id',
  source: 'source',
  idempotencyKey: 'idempotency_key',
  aggregateId: 'aggregate_id',
  eventType: 'event_type',
  payload: 'payload',
  state: 'state',
  createdAt: 'created_at',
  processedAt: 'processed_at',
  claimedAt: 'claimed_at',
  claimToken: 'claim_token',
  leaseExpiresAt: 'lease_expires_at',
  correlationId: 'correlation_id',
  consumption: 'consumption',
  scheduledAt: 'scheduled_at',
  attempt: 'attempt',
  lastError: 'last_error',
  headers: 'headers',
};
