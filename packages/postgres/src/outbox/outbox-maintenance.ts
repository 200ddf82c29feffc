import type { Clock, OutboxGauges } from '@queuebox/core';
import type postgres from 'postgres';
import { pipelinedTransaction } from '../connection/pipelined-transaction.js';
import { countPlanned, runPlanned, toCount } from '../connection/run-statement.js';
import type { TableNames } from '../schema/table-names.js';

/**
 * The poller's housekeeping statements (spec §4.1): the reclaim step, the gauges and the next
 * wake-up. Each is one statement (the gauges' behind a setting); none takes a claim-wide lock.
 * They run every few seconds and are planned per call, so they keep using the partial indexes
 * however the table grew.
 */

/**
 * Expired (or lease-less) processing rows back to pending. `attempt` is not changed: a crash is
 * not a failed delivery. The claim token stays; it no longer matches a fence because the state
 * is no longer 'processing', and the next claim writes a new one.
 */
export function reclaimStatement(tables: TableNames): string {
  const c = tables.outboxColumns;
  return `UPDATE ${tables.outbox}
SET ${c.state} = 'pending', ${c.claimedAt} = NULL, ${c.updatedAt} = $1::timestamptz
WHERE ${c.state} = 'processing'
  AND (${c.leaseExpiresAt} <= clock_timestamp() OR ${c.leaseExpiresAt} IS NULL)`;
}

/**
 * The gauges' query reads every pending row (the count, and `created_at`, which no index holds),
 * so it runs without parallel workers: a parallel scan of a large backlog ends sooner, but it
 * spends more CPU in all (two workers and the leader on a 2-core machine took about twice the
 * serial scan's), on the cores that claims and completions are waiting for, for a gauge that
 * nothing waits on. The poller also bounds how often it runs (GAUGES_DUTY).
 */
export const GAUGES_SETTINGS = "SELECT set_config('max_parallel_workers_per_gather', '0', true)";

/** One query for both gauges; the age is on the DB clock like `created_at` itself. */
export function gaugesStatement(tables: TableNames): string {
  const c = tables.outboxColumns;
  return `SELECT count(*)::text AS "pending",
       COALESCE(GREATEST(EXTRACT(EPOCH FROM (now() - MIN(${c.createdAt}))), 0), 0)::float8 AS "ageSeconds"
FROM ${tables.outbox}
WHERE ${c.state} = 'pending'`;
}

/**
 * Each deadline against its own clock (spec §3.7): schedules against app now ($1), leases against
 * the DB clock. MIN over the pending index is one index probe; processing rows are few.
 */
export function nextWakeStatement(tables: TableNames): string {
  const t = tables.outbox;
  const c = tables.outboxColumns;
  return `SELECT
  (SELECT EXTRACT(EPOCH FROM (MIN(${c.scheduledAt}) - $1::timestamptz)) * 1000
     FROM ${t} WHERE ${c.state} = 'pending')::float8 AS "scheduleMs",
  (SELECT EXTRACT(EPOCH FROM (MIN(${c.leaseExpiresAt}) - clock_timestamp())) * 1000
     FROM ${t} WHERE ${c.state} = 'processing')::float8 AS "leaseMs"`;
}

export function createMaintenance(sql: postgres.Sql, tables: TableNames, clock: Clock) {
  const reclaimText = reclaimStatement(tables);
  const gaugesText = gaugesStatement(tables);
  const nextWakeText = nextWakeStatement(tables);

  async function reclaimExpired(): Promise<number> {
    return countPlanned(sql, reclaimText, [clock.now()]);
  }

  async function gauges(): Promise<OutboxGauges> {
    // The query is planned per call like the others; the setting holds for this transaction only.
    const [, rows] = (await pipelinedTransaction(sql, [
      { text: GAUGES_SETTINGS },
      { text: gaugesText, prepare: false },
    ])) as [unknown, { pending: string; ageSeconds: number }[]];
    const row = rows[0];
    return { pending: toCount(row?.pending), oldestPendingAgeSeconds: row?.ageSeconds ?? 0 };
  }

  async function nextWakeDelayMs(maxMs: number): Promise<number> {
    const [row] = await runPlanned<{ scheduleMs: number | null; leaseMs: number | null }>(
      sql,
      nextWakeText,
      [clock.now()],
    );
    const deadlines = [row?.scheduleMs, row?.leaseMs].filter(
      (ms): ms is number => typeof ms === 'number',
    );
    const nearest = deadlines.length === 0 ? maxMs : Math.min(...deadlines);
    return Math.min(Math.max(Math.ceil(nearest), 1), maxMs);
  }

  return { reclaimExpired, gauges, nextWakeDelayMs };
}
