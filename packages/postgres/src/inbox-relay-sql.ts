import type { TableNames } from './table-names.js';

/**
 * Statement texts of the relay side of the inbox store (spec §8.2, §8.3), batched: one claim
 * statement per batch, one forward statement per batch, one fenced statement per batch of dead
 * marks or renewals. Every claim, fence and lease rule is here, in SQL, so it holds across
 * replicas (ours and the reference's).
 */
export interface InboxRelaySql {
  /** Taken in the claim transaction before the claim; $1 is the lock key (a bigint as text). */
  readonly claimLock: string;
  /**
   * $1 batch size, $2 candidate window, $3 app-now (claimed_at), $4 lease in ms. Returns the
   * claimed rows under the fixed aliases of `ROW_ALIASES`, in (scheduled_at, created_at) order.
   */
  readonly claim: string;
  /**
   * $1 inbox ids, $2 claim tokens, $3 outbox ids, $4 topics, $5 keys, $6 headers (JSON text),
   * $7 max attempts, $8 app-now. Returns the inbox ids whose fence held; only those got an outbox
   * row. The outbox payload is the stored inbox payload (spec §8.3: the relay runs no
   * transform), copied inside the statement rather than sent back and forth: 1 KiB per row that
   * the client would parse, serialize and send, and the database parse again.
   */
  readonly forward: string;
  /** $1 ids, $2 tokens. Returns the ids whose fence held. */
  readonly markDead: string;
  /** $1 ids, $2 tokens, $3 lease in ms. Returns the ids whose fence held. */
  readonly renew: string;
}

/**
 * The names the claim returns its columns under, whatever the configured column names are. Not
 * the payload: the forward copies it inside the database (see RelayClaimedMessage).
 */
export const ROW_ALIASES = [
  'id',
  'source',
  'idempotency_key',
  'aggregate_id',
  'event_type',
  'headers',
  'correlation_id',
  'consumption',
  'state',
  'created_at',
  'scheduled_at',
  'attempt',
  'claim_token',
  'claimed_at',
  'lease_expires_at',
  'processed_at',
  'last_error',
] as const;

export function inboxRelaySql(tables: TableNames): InboxRelaySql {
  const t = tables.inbox;
  const c = tables.inboxColumns;
  const o = tables.outboxColumns;
  const columnOf: Record<(typeof ROW_ALIASES)[number], string> = {
    id: c.id,
    source: c.source,
    idempotency_key: c.idempotencyKey,
    aggregate_id: c.aggregateId,
    event_type: c.eventType,
    headers: c.headers,
    correlation_id: c.correlationId,
    consumption: c.consumption,
    state: c.state,
    created_at: c.createdAt,
    scheduled_at: c.scheduledAt,
    attempt: c.attempt,
    claim_token: c.claimToken,
    claimed_at: c.claimedAt,
    lease_expires_at: c.leaseExpiresAt,
    processed_at: c.processedAt,
    last_error: c.lastError,
  };
  const returned = ROW_ALIASES.map((alias) => `u.${columnOf[alias]} AS ${alias}`).join(', ');
  // The fence of spec §8.3: this claim, still processing, under a lease that has not run out.
  const fence = (row: string, ids: string) =>
    `${row}.${c.id} = ${ids}.id AND ${row}.${c.state} = 'processing' AND ${row}.${c.claimToken} = ${ids}.token ` +
    `AND ${row}.${c.leaseExpiresAt} > clock_timestamp()`;
  const due = (row: string) =>
    `${row}.${c.state} = 'pending' AND ${row}.${c.consumption} = 'push' AND ${row}.${c.scheduledAt} <= clock_timestamp()`;

  return {
    claimLock: 'SELECT pg_advisory_xact_lock($1::bigint)',
    claim: `WITH candidates AS (
    -- A bounded prefix of the due push rows in forwarding order. An aggregate's earliest due
    -- row comes before its later ones, so every aggregate that appears here has its head here.
    SELECT p.${c.id} AS id, p.${c.aggregateId} AS aggregate_id, p.${c.scheduledAt} AS scheduled_at,
        p.${c.createdAt} AS created_at
    FROM ${t} p
    WHERE ${due('p')}
    ORDER BY p.${c.scheduledAt}, p.${c.createdAt}, p.${c.id}
    LIMIT $2
), heads AS (
    -- One row per aggregate: its earliest. A row without an aggregate is its own group.
    SELECT DISTINCT ON (h.aggregate_id IS NULL, COALESCE(h.aggregate_id, h.id::text))
        h.id, h.aggregate_id, h.scheduled_at, h.created_at
    FROM candidates h
    ORDER BY h.aggregate_id IS NULL, COALESCE(h.aggregate_id, h.id::text), h.scheduled_at, h.created_at, h.id
), eligible AS (
    -- Spec §8.2: any processing row blocks its aggregate, whatever its source, consumption or
    -- lease (an expired one blocks until the reclaim step returns it).
    SELECT e.id
    FROM heads e
    WHERE e.aggregate_id IS NULL OR NOT EXISTS (
        SELECT 1 FROM ${t} b WHERE b.${c.aggregateId} = e.aggregate_id AND b.${c.state} = 'processing')
    ORDER BY e.scheduled_at, e.created_at, e.id
    LIMIT $1
), locked AS (
    -- Lock on the base table and re-check readiness there. A head that another transaction
    -- holds is skipped, never replaced by a later row of its aggregate.
    SELECT i.${c.id} AS id
    FROM ${t} i
    JOIN eligible e ON e.id = i.${c.id}
    WHERE ${due('i')}
    FOR UPDATE OF i SKIP LOCKED
), claimed AS (
    UPDATE ${t} u
    SET ${c.state} = 'processing', ${c.claimedAt} = $3::timestamptz, ${c.claimToken} = gen_random_uuid(),
        ${c.leaseExpiresAt} = clock_timestamp() + $4::bigint * interval '1 millisecond'
    FROM locked l
    WHERE u.${c.id} = l.id AND ${due('u')}
    RETURNING ${returned}
)
SELECT * FROM claimed ORDER BY scheduled_at, created_at, id`,
    // The forward commits without waiting for its WAL flush. A crash can lose only a suffix of
    // the WAL, so a lost forward takes every later claim and forward with it: the inbox row is
    // forwarded again (a duplicate with a new outbox id, which at-least-once allows) and never
    // out of aggregate order. Whatever the outbox later marks `sent` flushes the forward first.
    forward: `WITH relaxed AS MATERIALIZED (
    SELECT set_config('synchronous_commit', 'off', true) AS setting
), batch AS (
    SELECT f.* FROM relaxed, unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[],
        $6::text[], $7::int[])
        WITH ORDINALITY AS f(id, token, outbox_id, topic, key, headers, max_attempts, ord)
), marked AS (
    UPDATE ${t} m
    SET ${c.state} = 'processed', ${c.processedAt} = $8::timestamptz
    FROM batch f
    WHERE ${fence('m', 'f')}
    RETURNING m.${c.id} AS id, m.${c.payload} AS payload
), inserted AS (
    -- Only rows whose fence held get an outbox row: a lost claim writes nothing. Claim order
    -- is insert order, so the database's sequence follows it (spec §8.4, order end to end).
    INSERT INTO ${tables.outbox} (${o.id}, ${o.topic}, ${o.key}, ${o.payload}, ${o.headers}, ${o.state},
        ${o.attempt}, ${o.maxAttempts}, ${o.scheduledAt}, ${o.createdAt}, ${o.updatedAt})
    SELECT f.outbox_id, f.topic, f.key, k.payload, f.headers::jsonb, 'pending',
        0, f.max_attempts, $8::timestamptz, $8::timestamptz, $8::timestamptz
    FROM batch f
    JOIN marked k ON k.id = f.id
    ORDER BY f.ord
    RETURNING 1
)
SELECT k.id FROM marked k`,
    markDead: `UPDATE ${t} d
SET ${c.state} = 'dead', ${c.claimedAt} = NULL
FROM unnest($1::uuid[], $2::uuid[]) AS f(id, token)
WHERE ${fence('d', 'f')}
RETURNING d.${c.id} AS id`,
    renew: `UPDATE ${t} r
SET ${c.leaseExpiresAt} = clock_timestamp() + $3::bigint * interval '1 millisecond'
FROM unnest($1::uuid[], $2::uuid[]) AS f(id, token)
WHERE ${fence('r', 'f')}
RETURNING r.${c.id} AS id`,
  };
}
