import type { Headers, RelayClaimedMessage } from '@queuebox/core';

/**
 * A row as the relay's re-read returns it (the aliases of rereadStatement): the claimed message,
 * with its headers as the JSON text SQL Server stores.
 */
export type ClaimedRow = Omit<RelayClaimedMessage, 'headers'> & {
  readonly headers: string | null;
};

/** SQL Server returns uniqueidentifiers upper-cased; the port's ids are lower-case. */
export function claimedMessage(row: ClaimedRow): RelayClaimedMessage {
  return {
    id: row.id.toLowerCase(),
    source: row.source,
    idempotencyKey: row.idempotencyKey,
    aggregateId: row.aggregateId,
    eventType: row.eventType,
    // NOT NULL since V10, but a hand-made custom table may allow NULL.
    headers: row.headers === null ? {} : (JSON.parse(row.headers) as Headers),
    correlationId: row.correlationId,
    consumption: row.consumption,
    state: row.state,
    createdAt: row.createdAt,
    scheduledAt: row.scheduledAt,
    attempt: row.attempt,
    claimToken: row.claimToken.toLowerCase(),
  };
}
