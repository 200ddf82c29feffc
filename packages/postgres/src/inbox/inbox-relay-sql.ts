import type { TableNames } from '../schema/table-names.js';

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
   * Settings for the claim's transaction, in one statement sent before it. Synchronous commit
   * off: see the store's `claimForRelay`. Bitmap scans off: without
   * statistics the window would otherwise be planned as a bitmap scan and a sort over every
   * pending row. JIT off: the planner costs the recursive window as if it ran many rounds, above
   * `jit_above_cost`, and compiling it took many times what the claim itself takes.
   */
  readonly claimSettings: string;
  /**
   * $1 batch size, $2 candidate window (rows read per round), $3 app-now (claimed_at), $4 lease
   * in ms. Returns the claimed rows under the fixed aliases of `ROW_ALIASES`, in
   * (scheduled_at, created_at) order.
   */
  readonly claim: string;
  /**
   * $1 inbox ids, $2 claim tokens, $3 outbox ids, $4 topics, $5 keys, $6 headers (JSON text),
   * $7 max attempts, $8 app-now. Returns the inbox ids whose fence held; only those got an outbox
   * row. The outbox payload is the stored inbox payload (spec §8.3: the relay runs no
   * transform), copied inside the statement rather than sent back and forth: a payload per row
   * that the client would parse, serialize and send, and the database parse again.
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

/**
 * How many due rows one round of the claim reads (see the claim): wide enough that one round
 * finds a batch of heads on an ordinary backlog (the bench's 100,000 rows over 1,000 aggregates
 * take one round per claim), bounded because each round sorts its rows by aggregate.
 */
export function relayCandidateWindow(limit: number): number {
  return Math.min(Math.max(5 * limit, 100), 2000);
}

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
    claimSettings: `SELECT set_config('synchronous_commit', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('jit', 'off', true)`,
    claim: `WITH RECURSIVE busy AS (
    -- Spec §8.2: any processing row blocks its aggregate, whatever its source, consumption or
    -- lease (an expired one blocks until the reclaim step returns it).
    SELECT b.${c.aggregateId} AS aggregate_id
    FROM ${t} b
    WHERE b.${c.state} = 'processing' AND b.${c.aggregateId} IS NOT NULL
), rounds AS (
    SELECT 0 AS round, '-infinity'::timestamptz AS read_to, ARRAY[]::text[] AS taken,
        ARRAY[]::tid[] AS head_refs, ARRAY[]::timestamptz[] AS head_scheduled,
        ARRAY[]::timestamptz[] AS head_created, ARRAY[]::uuid[] AS head_ids, 0 AS found, true AS more
    UNION ALL
    SELECT r.round + 1, w.read_to, r.taken || w.taken, w.head_refs, w.head_scheduled,
        w.head_created, w.head_ids, r.found + cardinality(w.head_refs), w.filled
    FROM rounds r
    CROSS JOIN LATERAL (
        -- The four head arrays are filled in one pass of one aggregate, so their elements
        -- line up.
        SELECT max(x.scheduled_at) AS read_to,
            COALESCE(array_agg(x.aggregate_id) FILTER (WHERE x.head AND x.aggregate_id IS NOT NULL),
                ARRAY[]::text[]) AS taken,
            COALESCE(array_agg(x.row_ref) FILTER (WHERE x.head), ARRAY[]::tid[]) AS head_refs,
            COALESCE(array_agg(x.scheduled_at) FILTER (WHERE x.head), ARRAY[]::timestamptz[]) AS head_scheduled,
            COALESCE(array_agg(x.created_at) FILTER (WHERE x.head), ARRAY[]::timestamptz[]) AS head_created,
            COALESCE(array_agg(x.id) FILTER (WHERE x.head), ARRAY[]::uuid[]) AS head_ids,
            count(*) >= $2 AS filled
        FROM (
            SELECT v.*, v.aggregate_id IS NULL OR row_number() OVER (
                    PARTITION BY v.aggregate_id ORDER BY v.scheduled_at, v.created_at, v.id) = 1 AS head
            FROM (
                SELECT p.ctid AS row_ref, p.${c.id} AS id, p.${c.aggregateId} AS aggregate_id,
                    p.${c.scheduledAt} AS scheduled_at, p.${c.createdAt} AS created_at
                FROM ${t} p
                WHERE ${due('p')}
                  AND p.${c.scheduledAt} > r.read_to
                  AND (p.${c.aggregateId} IS NULL OR (p.${c.aggregateId} <> ALL (r.taken)
                      AND p.${c.aggregateId} NOT IN (SELECT k.aggregate_id FROM busy k)))
                ORDER BY p.${c.scheduledAt}
                FETCH FIRST $2 ROWS WITH TIES
            ) v
        ) x
        HAVING count(*) > 0
    ) w
    -- Every round with rows finds a head, so this ends after at most $1 + 1 rounds.
    WHERE r.more AND r.found < $1
), eligible AS (
    SELECT h.row_ref
    FROM rounds r
    CROSS JOIN LATERAL unnest(r.head_refs, r.head_scheduled, r.head_created, r.head_ids)
        AS h(row_ref, scheduled_at, created_at, id)
    ORDER BY r.round, h.scheduled_at, h.created_at, h.id
    LIMIT $1
), locked AS (
    -- Lock on the base table, then keep a row only if the version locked is still due. A head
    -- that another transaction holds is skipped, never replaced by a later row of its
    -- aggregate. Rows are found by ctid, a TID scan whatever the statistics say: with the
    -- readiness test in the same WHERE, a never-analyzed table had the planner walk every due
    -- row through idx_inbox_consumption_pending instead (seconds per claim at 100,000 rows).
    -- A row updated after our snapshot is locked in its newest version, which the test outside
    -- sees; were it let through, the UPDATE by ctid would still not see that version.
    SELECT q.row_ref
    FROM (
        SELECT i.ctid AS row_ref, i.${c.state} AS state, i.${c.consumption} AS consumption,
            i.${c.scheduledAt} AS scheduled_at
        FROM ${t} i
        WHERE i.ctid = ANY (ARRAY(SELECT e.row_ref FROM eligible e))
        -- OFFSET 0 keeps the test below out of this WHERE (PostgreSQL would push it down).
        OFFSET 0
        FOR UPDATE OF i SKIP LOCKED
    ) q
    WHERE q.state = 'pending' AND q.consumption = 'push' AND q.scheduled_at <= clock_timestamp()
), claimed AS (
    UPDATE ${t} u
    SET ${c.state} = 'processing', ${c.claimedAt} = $3::timestamptz, ${c.claimToken} = gen_random_uuid(),
        ${c.leaseExpiresAt} = clock_timestamp() + $4::bigint * interval '1 millisecond'
    WHERE u.ctid = ANY (ARRAY(SELECT l.row_ref FROM locked l))
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
