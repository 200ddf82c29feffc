import { QueueBoxError, type Clock, type Fence, type OutboxCompletion } from '@queuebox/core';
import type postgres from 'postgres';
import type { Param } from '../connection/run-statement.js';
import { pipelinedTransaction } from '../connection/pipelined-transaction.js';
import type { TableNames } from '../schema/table-names.js';

/**
 * The fenced writes of spec §4.4, each one statement for a whole batch. The fence is
 * `state='processing' AND claim_token = :token AND lease_expires_at > DB now` per row, checked by
 * the UPDATE itself, so a row whose claim was lost (reclaimed, re-claimed, expired) is simply not
 * matched and not returned: one statement means no row of a mixed batch can be written on a
 * fence that another row of the batch passed.
 *
 * The state test is written `(state || '') = 'processing'` on purpose. Spelled plainly it proves
 * the predicate of idx_outbox_processing_claimed, and when the statistics say few rows are in
 * processing (the usual picture right after ANALYZE) the planner scans that whole index and re-runs
 * `unnest` once per processing row: O(in flight × batch), slower than the probes already at the
 * default batch and worse as either grows. Hidden from the index, the only plan left is one
 * primary-key probe per batch row.
 */
function fence(tables: TableNames, alias: string, source: string): string {
  const c = tables.outboxColumns;
  return `${alias}.${c.id} = ${source}.id
  AND (${alias}.${c.state} || '') = 'processing'
  AND ${alias}.${c.claimToken} = ${source}.token
  AND ${alias}.${c.leaseExpiresAt} > clock_timestamp()`;
}

/**
 * sent: state, updated_at (claim columns left as they are). retry: pending again at app now +
 * delay, attempt + 1 (the only place it increments), claimed_at cleared, last_error. dead: state,
 * claimed_at cleared, last_error.
 */
export function completeStatement(tables: TableNames): string {
  const t = tables.outbox;
  const c = tables.outboxColumns;
  return `UPDATE ${t} AS target
SET ${c.state} = CASE done.kind WHEN 'sent' THEN 'sent' WHEN 'retry' THEN 'pending' ELSE 'dead' END,
    ${c.updatedAt} = $1::timestamptz,
    ${c.scheduledAt} = CASE WHEN done.kind = 'retry'
      THEN $1::timestamptz + done.delay_ms * interval '1 millisecond' ELSE target.${c.scheduledAt} END,
    ${c.attempt} = CASE WHEN done.kind = 'retry' THEN target.${c.attempt} + 1 ELSE target.${c.attempt} END,
    ${c.claimedAt} = CASE WHEN done.kind = 'sent' THEN target.${c.claimedAt} ELSE NULL END,
    ${c.lastError} = CASE WHEN done.kind = 'sent' THEN target.${c.lastError}
      ELSE COALESCE(done.error, target.${c.lastError}) END
FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::float8[], $6::text[]) AS done(id, token, kind, delay_ms, error)
WHERE ${fence(tables, 'target', 'done')}
RETURNING target.${c.id}::text AS "id"`;
}

/**
 * The batch where every completion is 'sent' (the usual one): the same write as the 'sent' arm
 * of `completeStatement`, with two arrays instead of five and no CASE per column, which is
 * cheaper to send, to parse and to run.
 */
export function completeSentStatement(tables: TableNames): string {
  const c = tables.outboxColumns;
  return `UPDATE ${tables.outbox} AS target
SET ${c.state} = 'sent', ${c.updatedAt} = $1::timestamptz
FROM unnest($2::uuid[], $3::uuid[]) AS done(id, token)
WHERE ${fence(tables, 'target', 'done')}
RETURNING target.${c.id}::text AS "id"`;
}

export function renewStatement(tables: TableNames): string {
  const c = tables.outboxColumns;
  return `UPDATE ${tables.outbox} AS target
SET ${c.leaseExpiresAt} = clock_timestamp() + $1::integer * interval '1 millisecond'
FROM unnest($2::uuid[], $3::uuid[]) AS owned(id, token)
WHERE ${fence(tables, 'target', 'owned')}
RETURNING target.${c.id}::text AS "id"`;
}

/** Shutdown hand-back: like the reclaim step, but fenced and at once instead of after the lease. */
export function releaseStatement(tables: TableNames): string {
  const c = tables.outboxColumns;
  return `UPDATE ${tables.outbox} AS target
SET ${c.state} = 'pending', ${c.claimedAt} = NULL, ${c.updatedAt} = $1::timestamptz
FROM unnest($2::uuid[], $3::uuid[]) AS owned(id, token)
WHERE ${fence(tables, 'target', 'owned')}
RETURNING target.${c.id}::text AS "id"`;
}

/**
 * Planner guard of the fenced writes: whatever the statistics say, each batch row is one
 * primary-key probe. The writes run as named prepared statements (one round trip; an unnamed
 * statement with parameters costs postgres.js two: describe, then execute), and a generic plan
 * made while the outbox was small would otherwise be a sequential scan joined by hash, kept for
 * the life of the connection, and slower the larger the outbox grows.
 */
export const FENCED_WRITE_SETTINGS =
  "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)";

async function fencedWrite(sql: postgres.Sql, text: string, params: readonly Param[]) {
  // Rows as arrays: one id each, no object with a named key built per row.
  const [, rows] = (await pipelinedTransaction(sql, [
    { text: FENCED_WRITE_SETTINGS },
    { text, params, values: true },
  ])) as [unknown, [string][]];
  const held = new Set<string>();
  for (const row of rows) held.add(row[0]);
  return held;
}

export function createCompletion(sql: postgres.Sql, tables: TableNames, clock: Clock) {
  const completeText = completeStatement(tables);
  const completeSentText = completeSentStatement(tables);
  const renewText = renewStatement(tables);
  const releaseText = releaseStatement(tables);

  async function complete(completions: readonly OutboxCompletion[]): Promise<Set<string>> {
    if (completions.length === 0) return new Set();
    if (completions.every((c) => c.kind === 'sent')) {
      return fencedWrite(sql, completeSentText, [clock.now(), ...sentColumns(completions)]);
    }
    return fencedWrite(sql, completeText, [clock.now(), ...completionColumns(completions)]);
  }

  async function renew(fences: readonly Fence[], leaseMs: number): Promise<Set<string>> {
    if (fences.length === 0) return new Set();
    if (!Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > 2 ** 31 - 1) {
      throw new QueueBoxError(
        'internal',
        `A lease must be a whole number of ms in [1, 2^31-1], not ${leaseMs}.`,
      );
    }
    return fencedWrite(sql, renewText, [leaseMs, ...fenceColumns(fences)]);
  }

  async function release(fences: readonly Fence[]): Promise<Set<string>> {
    if (fences.length === 0) return new Set();
    return fencedWrite(sql, releaseText, [clock.now(), ...fenceColumns(fences)]);
  }

  return { complete, renew, release };
}

/**
 * Rows are written in id order. The UPDATE locks rows in `unnest` order, so a completion batch
 * and a renewal batch over the same in-flight rows (the poller runs both) always lock in one
 * order and cannot deadlock each other.
 */
function byId<T>(items: readonly T[], id: (item: T) => string): T[] {
  // Lowercased once per item, not once per comparison.
  const keyed = items.map((item) => ({ key: id(item).toLowerCase(), item }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((k) => k.item);
}

/**
 * Column arrays for `unnest`. One id twice in a batch would let the UPDATE pick either write, so
 * it is refused: each claimed row ends in exactly one completion.
 */
function completionColumns(
  completions: readonly OutboxCompletion[],
): [string[], string[], string[], (number | null)[], (string | null)[]] {
  const ids: string[] = [];
  const tokens: string[] = [];
  const kinds: string[] = [];
  const delays: (number | null)[] = [];
  const errors: (string | null)[] = [];
  const seen = new Set<string>();
  for (const completion of byId(completions, (c) => c.fence.id)) {
    const { id, claimToken } = completion.fence;
    if (seen.has(id)) {
      throw new QueueBoxError('internal', `Message ${id} appears twice in one completion batch.`);
    }
    seen.add(id);
    // The SQL maps any other kind to 'dead'; a caller outside the type system must not get that.
    if (!['sent', 'retry', 'dead'].includes(completion.kind)) {
      throw new QueueBoxError('internal', `Unknown completion kind '${String(completion.kind)}'.`);
    }
    ids.push(id);
    tokens.push(claimToken);
    kinds.push(completion.kind);
    if (completion.kind === 'retry') {
      if (!Number.isFinite(completion.delayMs) || completion.delayMs < 0) {
        throw new QueueBoxError(
          'internal',
          `A retry delay must be a finite number of ms >= 0, not ${completion.delayMs}.`,
        );
      }
      delays.push(completion.delayMs);
    } else {
      delays.push(null);
    }
    errors.push(completion.kind === 'sent' ? null : completion.error);
  }
  return [ids, tokens, kinds, delays, errors];
}

/** The two columns of an all-'sent' batch, refused on a repeated id like `completionColumns`. */
function sentColumns(completions: readonly OutboxCompletion[]): [string[], string[]] {
  const [ids, tokens] = fenceColumns(completions.map((c) => c.fence));
  if (new Set(ids).size !== ids.length) {
    const seen = new Set<string>();
    const twice = ids.find((id) => seen.size === seen.add(id).size);
    throw new QueueBoxError('internal', `Message ${twice} appears twice in one completion batch.`);
  }
  return [ids, tokens];
}

function fenceColumns(fences: readonly Fence[]): [string[], string[]] {
  const ordered = byId(fences, (f) => f.id);
  return [ordered.map((f) => f.id), ordered.map((f) => f.claimToken)];
}
