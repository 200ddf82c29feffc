import type { TableNames } from '../schema/table-names.js';

/**
 * Statement texts of the inbox store that are not part of the relay claim: the grouped insert,
 * the reclaim step and the oldest-pending gauge. Table and column names come from TableNames
 * (validated and quoted); every value is a positional parameter, so each text is built once per
 * store and prepared once per connection.
 *
 * Times follow spec §3.7: `created_at` and the relay's `claimed_at`/`processed_at` are the app
 * clock (bound), `scheduled_at` at receipt and every lease is the DB clock. The DB clock is
 * `clock_timestamp()`, not `now()`: `now()` is frozen at the start of the transaction, which
 * would let a long transaction see a lease as live after it ran out.
 */
export interface InboxStoreSql {
  /**
   * The grouped store of spec §7.4: one row per element of the bound arrays, inserted in array
   * order, duplicates (also two elements with one key) skipped by the unique constraint.
   * $1 ids, $2 sources, $3 keys, $4 aggregate ids, $5 event types, $6 payloads (JSON text),
   * $7 headers (JSON text), $8 correlation ids, $9 consumptions, $10 states, $11 created_at,
   * $12 publish times (null = none), $13 delays in ms, $14 last errors (a dead row's reason,
   * else null). Returns the ids that were inserted.
   */
  readonly insert: string;
  /** §8.1 step 1, for every consumption mode (see reclaimExpired in inbox-store.ts). */
  readonly reclaimExpired: string;
  readonly oldestPendingAgeSeconds: string;
}

export function inboxStoreSql(tables: TableNames): InboxStoreSql {
  const t = tables.inbox;
  const c = tables.inboxColumns;
  return {
    insert: `INSERT INTO ${t} (${c.id}, ${c.source}, ${c.idempotencyKey}, ${c.aggregateId}, ${c.eventType},
    ${c.payload}, ${c.state}, ${c.createdAt}, ${c.correlationId}, ${c.headers}, ${c.consumption}, ${c.scheduledAt}, ${c.lastError})
SELECT m.id, m.source, m.idempotency_key, m.aggregate_id, m.event_type,
    m.payload::jsonb, m.state, m.created_at, m.correlation_id, m.headers::jsonb, m.consumption,
    -- LEAST ignores a NULL publish time, and a publish time later than receipt counts as receipt.
    LEAST(clock_timestamp(), m.publish_time) + m.delay_ms * interval '1 millisecond',
    m.last_error
FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
    $8::text[], $9::text[], $10::text[], $11::timestamptz[], $12::timestamptz[], $13::bigint[], $14::text[])
    WITH ORDINALITY AS m(id, source, idempotency_key, aggregate_id, event_type, payload, headers,
        correlation_id, consumption, state, created_at, publish_time, delay_ms, last_error, ord)
-- Array order is call order: it decides which of two equal keys wins and keeps scheduled_at in
-- the order the callers stored (clock_timestamp() is evaluated after the sort, row by row).
ORDER BY m.ord
ON CONFLICT (${c.source}, ${c.idempotencyKey}) DO NOTHING
RETURNING ${c.id} AS id`,
    reclaimExpired: `UPDATE ${t}
SET ${c.state} = 'pending', ${c.claimedAt} = NULL
WHERE ${c.state} = 'processing'
  AND (${c.leaseExpiresAt} <= clock_timestamp() OR ${c.leaseExpiresAt} IS NULL)`,
    // Never negative: created_at is the app clock, which may run ahead of the database's.
    oldestPendingAgeSeconds: `SELECT COALESCE(GREATEST(EXTRACT(EPOCH FROM clock_timestamp() - MIN(${c.createdAt})), 0), 0)::float8 AS age
FROM ${t}
WHERE ${c.state} = 'pending'`,
  };
}
