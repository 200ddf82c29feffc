import { QueueBoxError, type ClaimedOutboxMessage, type Clock } from '@queuebox/core';
import type postgres from 'postgres';
import { runPrepared } from './outbox-query.js';
import { byScheduleThenCreation, claimedColumns, toClaimedMessage, type ClaimedRow } from './outbox-rows.js';
import type { TableNames } from './table-names.js';

const MAX_LEASE_MS = 2 ** 31 - 1;

/**
 * How many due heads the claim reads, in index order, before it sorts by (scheduled_at,
 * sequence) and locks. See `claimStatement` for why the window exists. It is at least twice the
 * batch plus some: rows that a concurrent claimer (another replica) holds locked are passed over
 * by SKIP LOCKED, and the rest of the window still fills the batch.
 *
 * The window is a constant in the SQL text, one statement per power of two, not a parameter: with
 * `LIMIT $n` the planner costs the generic plan as if a tenth of the table were read, so the plan
 * cache kept choosing a custom plan and re-planned every claim (about 1.3 ms, measured). With a
 * constant the cached generic plan is used from the sixth claim on.
 */
export function candidateWindow(limit: number): number {
  let window = 64;
  while (window < limit * 2 + 32) window *= 2;
  return window;
}

/**
 * The key-ordered claim of spec §4.2 as one statement.
 *
 * Candidates: pending, due on the app clock ($1), and head of their key — NULL or '' key, or no
 * row of the same key in pending/processing with a lower sequence (a retry waiting in pending
 * holds its key, a processing row holds it, a dead or sent row does not).
 *
 * Why a window (`cand`): the only ordered access path is idx_outbox_pending_scheduled
 * (state, scheduled_at); nothing orders by sequence inside one scheduled_at. A multi-row insert
 * gives all its rows one CURRENT_TIMESTAMP, so `ORDER BY scheduled_at, sequence LIMIT n` over all
 * candidates reads and sorts the whole tie group on every claim (617 ms at 100 000 pending rows,
 * measured). The window reads the first `window` candidates in index order — every row with an
 * earlier scheduled_at comes before any later one, so schedule order is exact — and sorts only
 * those by (scheduled_at, sequence). Sequence order is exact inside the window; a tie group
 * larger than the window is taken window by window, in index order. Per-key order never depends
 * on this: the head predicate, not the ORDER BY, decides which row of a key may go, and the
 * seeds promise no order between keys or for NULL/'' keys.
 *
 * Locking: the lock level joins the window back to the table by ctid and locks with SKIP LOCKED,
 * so a row another claimer holds is passed over and the next candidate of the window is taken.
 * When a candidate was updated and committed after our snapshot, LockRows locks its newest
 * version and re-checks it with EvalPlanQual — and a Tid Scan does not re-check the TID there
 * (PostgreSQL's TidRecheck returns true), so the state, due and head predicates repeated at this
 * level are what reject it: a row another replica claimed in between is no longer 'pending'. Only
 * a row that is pending, due and the head of its key in our snapshot can be locked, so two
 * claimers never both take rows of one key. (Such a newest version is then not visible to the
 * UPDATE's snapshot and is left unclaimed: conservative.)
 *
 * The UPDATE joins on the locked ctid (no index probe) and sets the lease on the DB clock.
 */
export function claimStatement(tables: TableNames, window: number): string {
  const t = tables.outbox;
  const c = tables.outboxColumns;
  const head = (alias: string): string =>
    `(${alias}.${c.key} IS NULL OR ${alias}.${c.key} = '' OR NOT EXISTS (
          SELECT 1 FROM ${t} AS prior
          WHERE prior.${c.key} = ${alias}.${c.key}
            AND prior.${c.state} IN ('pending', 'processing')
            AND prior.${c.sequence} < ${alias}.${c.sequence}))`;
  return `UPDATE ${t} AS claimed
SET ${c.state} = 'processing',
    ${c.updatedAt} = $1::timestamptz,
    ${c.claimedAt} = $1::timestamptz,
    ${c.claimToken} = gen_random_uuid(),
    ${c.leaseExpiresAt} = clock_timestamp() + $2::integer * interval '1 millisecond'
FROM (
  SELECT locked.ctid AS row_ref
  FROM (
    SELECT w.ctid AS row_ref, w.${c.scheduledAt} AS due_at, w.${c.sequence} AS seq
    FROM ${t} AS w
    WHERE w.${c.state} = 'pending'
      AND w.${c.scheduledAt} <= $1::timestamptz
      AND ${head('w')}
    ORDER BY w.${c.scheduledAt}
    LIMIT ${window}
  ) AS cand
  JOIN ${t} AS locked ON locked.ctid = cand.row_ref
  WHERE locked.${c.state} = 'pending'
    AND locked.${c.scheduledAt} <= $1::timestamptz
    AND ${head('locked')}
  ORDER BY cand.due_at, cand.seq
  LIMIT $3::integer
  FOR UPDATE OF locked SKIP LOCKED
) AS picked
WHERE claimed.ctid = picked.row_ref
RETURNING ${claimedColumns(tables, 'claimed')}`;
}

export function createClaim(sql: postgres.Sql, tables: TableNames, clock: Clock) {
  // Built on first use per window size: claims of 1..100 rows use three (64, 128, 256).
  const statements = new Map<number, string>();
  return async function claim(limit: number, leaseMs: number): Promise<ClaimedOutboxMessage[]> {
    if (!Number.isInteger(limit) || limit <= 0) {
      throw new QueueBoxError('internal', `A claim needs a positive whole batch size, not ${limit}.`);
    }
    if (!Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS) {
      throw new QueueBoxError('internal', `A claim lease must be a whole number of ms in [1, ${MAX_LEASE_MS}], not ${leaseMs}.`);
    }
    const window = candidateWindow(limit);
    let text = statements.get(window);
    if (text === undefined) {
      text = claimStatement(tables, window);
      statements.set(window, text);
    }
    const rows = await runPrepared<ClaimedRow>(sql, text, [clock.now(), leaseMs, limit]);
    return rows.map(toClaimedMessage).sort(byScheduleThenCreation);
  };
}
