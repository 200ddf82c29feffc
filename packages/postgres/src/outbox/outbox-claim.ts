import {
  QueueBoxError,
  topicPatternSource,
  type ClaimOptions,
  type ClaimedOutboxMessage,
  type Clock,
} from '@queuebox/core';
import type postgres from 'postgres';
import {
  byScheduleThenCreation,
  claimedColumns,
  toClaimedMessage,
  type ClaimedValues,
} from './outbox-rows.js';
import { pipelinedTransaction } from '../connection/pipelined-transaction.js';
import type { Param } from '../connection/run-statement.js';
import type { TableNames } from '../schema/table-names.js';

const MAX_LEASE_MS = 2 ** 31 - 1;

/**
 * How many due heads the claim reads, in index order, before it sorts by (scheduled_at,
 * sequence) and locks. See `claimStatement` for why the window exists. It is the batch and a
 * quarter more: rows that a concurrent claimer (another replica, or this poller's overlapping
 * claim) holds locked are passed over by SKIP LOCKED, and the margin takes their place. The
 * margin is kept small because every head in the window costs its head test (for a keyed row an
 * index probe) on every claim, whereas a claim that comes back short under contention only
 * brings the next claim sooner. With twice the batch plus 32, a keyed claim of 100 probed 256
 * heads to take 100, and the database spent about a sixth more per keyed message.
 *
 * The window is a constant in the SQL text, one statement per power of two, not a parameter: with
 * `LIMIT $n` the planner costs the generic plan as if a tenth of the table were read, so the plan
 * cache kept choosing a custom plan and re-planned every claim. With a constant the cached generic
 * plan is used from the sixth claim on.
 */
export function candidateWindow(limit: number): number {
  let window = 64;
  while (window < limit * 1.25) window *= 2;
  return window;
}

/**
 * The key-ordered claim of spec §4.2 as one statement.
 *
 * Candidates: pending, due on the app clock ($1), and head of their key — NULL or '' key, or no
 * row of the same key in pending/processing with a lower sequence (a retry waiting in pending
 * holds its key, a processing row holds it, a dead or sent row does not) — and, like the relay's
 * busy aggregates, no processing row of that key at all. The last test is the seeds' "one row of
 * a key is in flight at a time" even where sequence order and claim order part (a replayed row
 * keeps its old sequence; a late commit can number a row below one already claimed): such a row
 * waits until its key's row in flight is done, as every later row does. It is also what keeps a
 * held key cheap: its test is one probe of a hash table that the statement builds once from the
 * processing rows, taken before the index probe of the prior-row test, so a key with thousands of
 * due rows behind its head in flight costs a hash probe per row, not an index probe (with index
 * probes, such a backlog made every claim slow in proportion to it).
 *
 * Why a window (`win`): the only ordered access path is idx_outbox_pending_scheduled (state,
 * scheduled_at); nothing orders by sequence inside one scheduled_at. A multi-row insert gives all
 * its rows one CURRENT_TIMESTAMP, so `ORDER BY scheduled_at, sequence LIMIT n` over all candidates
 * reads and sorts the whole tie group on every claim, which on a large backlog is many times what
 * this statement takes, and worse with many keys. The window reads the first `window` candidates in
 * index order — every row with an earlier scheduled_at comes before any later one, so schedule
 * order is exact — and sorts only those by (scheduled_at, sequence). Sequence order is exact inside
 * the window; a tie group larger than the window is taken window by window, in index order. Per-key
 * order never depends on this: the head predicate, not the ORDER BY, decides which row of a key may
 * go, and the seeds promise no order between keys or for NULL/'' keys. Every head test applies
 * before the window's LIMIT, so no backlog of one key can fill the window.
 *
 * Locking: the lock level (`fresh`) joins the sorted window back to the table by ctid alone —
 * a Tid Scan per candidate whatever the statistics say — and locks with SKIP LOCKED, so a row
 * another claimer holds is passed over and the next candidate of the window is taken. When a
 * candidate was updated and committed after our snapshot, LockRows locks its newest version and
 * re-checks that version with EvalPlanQual; a Tid Scan does not re-check the TID there
 * (PostgreSQL's TidRecheck returns true), so the state and due predicates are tested on the
 * version locked, above the lock: a row another replica claimed in between is no longer
 * 'pending', and one retried or handed back with a later schedule is no longer due. (Were it let
 * through, the UPDATE's own ctid join would still not see that version in its snapshot.) They
 * stand above the lock behind OFFSET 0, not in its WHERE: there, without statistics, the planner
 * read them as an index condition and joined every pending row to the window, a claim that grew
 * with the backlog. The head test is not repeated above the lock: it reads the row's key and
 * sequence, which no statement changes after the insert, and the other rows of the key through
 * subqueries, which see the statement's snapshot there as in the window (EvalPlanQual fetches
 * newer versions only of the rows it locks), so it could only give the window's answer again, at
 * an index probe per claimed row. A row is claimed only when its newest version is pending and
 * due and it is the head of its key in the statement's snapshot, so two claimers never both take
 * rows of one key: the second one's snapshot shows the first one's row as pending or processing.
 *
 * The window is sorted before the join (`cand`), and rows are pulled through the lock one at a
 * time up to the batch size: the re-check and the lock cost per claimed row, not per window row.
 *
 * The UPDATE joins on the locked ctid (no index probe) and sets the lease on the DB clock.
 *
 * `passOver` (a destination without capacity, see ClaimOptions) adds one test to the window:
 * the topic matches none of the regular expressions in `$4`, so those rows are neither read into
 * the window nor claimed. Without it the text is the plain claim's, byte for byte. The topic never
 * changes after the insert, so the re-check above the lock needs no copy of the test.
 */
export function claimStatement(tables: TableNames, window: number, passOver = false): string {
  const t = tables.outbox;
  const c = tables.outboxColumns;
  // The held test comes first and short-circuits: a row of a key in flight costs one probe of
  // a hash table built once per statement, not an index probe of its own.
  const head = (alias: string): string =>
    `(${alias}.${c.key} IS NULL OR ${alias}.${c.key} = '' OR (
        ${alias}.${c.key} NOT IN (
          SELECT held.${c.key} FROM ${t} AS held
          WHERE held.${c.state} = 'processing' AND held.${c.key} IS NOT NULL AND held.${c.key} <> '')
        AND NOT EXISTS (
          SELECT 1 FROM ${t} AS prior
          WHERE prior.${c.key} = ${alias}.${c.key}
            AND prior.${c.state} IN ('pending', 'processing')
            AND prior.${c.sequence} < ${alias}.${c.sequence})))`;
  return `UPDATE ${t} AS claimed
SET ${c.state} = 'processing',
    ${c.updatedAt} = $1::timestamptz,
    ${c.claimedAt} = $1::timestamptz,
    ${c.claimToken} = gen_random_uuid(),
    ${c.leaseExpiresAt} = clock_timestamp() + $2::integer * interval '1 millisecond'
FROM (
  SELECT fresh.row_ref
  FROM (
    SELECT locked.ctid AS row_ref, locked.${c.state} AS ${c.state},
        locked.${c.scheduledAt} AS ${c.scheduledAt}
    FROM (
      SELECT win.row_ref, win.due_at, win.seq
      FROM (
        SELECT w.ctid AS row_ref, w.${c.scheduledAt} AS due_at, w.${c.sequence} AS seq
        FROM ${t} AS w
        WHERE w.${c.state} = 'pending'
          AND w.${c.scheduledAt} <= $1::timestamptz
          AND ${head('w')}${passOver ? `\n          AND NOT (w.${c.topic} ~ ANY($4::text[]))` : ''}
        ORDER BY w.${c.scheduledAt}
        LIMIT ${window}
      ) AS win
      ORDER BY win.due_at, win.seq
    ) AS cand
    JOIN ${t} AS locked ON locked.ctid = cand.row_ref
    ORDER BY cand.due_at, cand.seq
    OFFSET 0
    FOR UPDATE OF locked SKIP LOCKED
  ) AS fresh
  WHERE fresh.${c.state} = 'pending'
    AND fresh.${c.scheduledAt} <= $1::timestamptz
  LIMIT $3::integer
) AS picked
WHERE claimed.ctid = picked.row_ref
RETURNING ${claimedColumns(tables, 'claimed')}`;
}

/**
 * Planner settings for the claim's own transaction (sent in one pipeline with it). Without
 * statistics on the outbox (a table filled faster than autovacuum analyzes it, or a database
 * without autovacuum) PostgreSQL plans the candidate window as a bitmap scan that tests the
 * key-head predicate on EVERY pending row and sorts them: on a large backlog, many times what the
 * ordered index scan it then picks takes, which is about as fast as after ANALYZE.
 */
export const PLANNER_SETTINGS = 'SET LOCAL enable_bitmapscan = off';

/**
 * The claim's settings in one statement, sent first in its own transaction: a `SELECT
 * set_config(..., true)` is `SET LOCAL`, and one statement spares both processes a bind, execute
 * and sync per setting on every claim. `PLANNER_SETTINGS` above, and with `asyncCommit` (the
 * relay's claim sets the same in its own settings statement): that transaction, and only it,
 * commits without waiting for its WAL flush, which on a slow disk is most of a claim's latency
 * (the flush takes many times what the statement itself takes). What a database crash can then
 * lose is the newest claims, never a completion or a forward's effect that a durable write
 * depends on: outbox completions commit synchronously, and flushing a commit record flushes every
 * earlier record, the claim of that row included. A lost claim leaves its row pending, so it is
 * delivered again — the duplicate that a crash may cause anyway (spec §18.1 G3), only without
 * waiting for the lease. A key still never has a later row claimed before an earlier one is
 * durably sent or dead.
 */
export function claimSettings(asyncCommit: boolean): string {
  const planner = "set_config('enable_bitmapscan', 'off', true)";
  return asyncCommit
    ? `SELECT set_config('synchronous_commit', 'off', true), ${planner}`
    : `SELECT ${planner}`;
}

/** The settings of a claim with `asyncCommit` (what bench/src/outbox/pgbench-statements.mjs runs). */
export const CLAIM_SETTINGS = claimSettings(true);

export function createClaim(
  sql: postgres.Sql,
  tables: TableNames,
  clock: Clock,
  asyncCommit: boolean,
) {
  // Built on first use per window size: claims of 1..102 rows use two (64, 128); the
  // claims that pass over a blocked destination's rows use their own (negative keys).
  const statements = new Map<number, string>();
  const settings = claimSettings(asyncCommit);
  return async function claim(
    limit: number,
    leaseMs: number,
    options?: ClaimOptions,
  ): Promise<ClaimedOutboxMessage[]> {
    if (!Number.isInteger(limit) || limit <= 0) {
      throw new QueueBoxError(
        'internal',
        `A claim needs a positive whole batch size, not ${limit}.`,
      );
    }
    if (!Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS) {
      throw new QueueBoxError(
        'internal',
        `A claim lease must be a whole number of ms in [1, ${MAX_LEASE_MS}], not ${leaseMs}.`,
      );
    }
    const window = candidateWindow(limit);
    const passOver = options && options.passOver.length > 0 ? passOverRegexes(options) : null;
    const cacheKey = passOver === null ? window : -window;
    let text = statements.get(cacheKey);
    if (text === undefined) {
      text = claimStatement(tables, window, passOver !== null);
      statements.set(cacheKey, text);
    }
    const params: Param[] = [clock.now(), leaseMs, limit];
    if (passOver !== null) params.push(passOver);
    const [, rows] = (await pipelinedTransaction(sql, [
      { text: settings },
      { text, params, values: true },
    ])) as [unknown, ClaimedValues[]];
    return rows.map(toClaimedMessage).sort(byScheduleThenCreation);
  };
}

/**
 * One anchored regular expression per rule: the rule's pattern, behind a negative lookahead of its
 * `unless` patterns (the earlier routes to destinations that are not blocked, which win over it).
 */
export function passOverRegexes(options: ClaimOptions): string[] {
  return options.passOver.map(({ pattern, unless }) => {
    const guard = unless.length === 0 ? '' : `(?!(?:${unless.map(topicPatternSource).join('|')})$)`;
    return `^${guard}(?:${topicPatternSource(pattern)})$`;
  });
}
