import type { Clock, OutboxStore } from '@queuebox/core';
import type postgres from 'postgres';
import { createClaim } from './outbox-claim.js';
import { createCompletion } from './outbox-completion.js';
import { createInsert } from './outbox-insert.js';
import { createMaintenance } from './outbox-maintenance.js';
import { createReplay } from './outbox-replay.js';
import type { TableNames } from '../schema/table-names.js';

export interface PostgresOutboxStoreOptions {
  /**
   * Commit claims without waiting for the WAL flush (default true); completions always wait.
   * Why that keeps every promise of spec §18 is explained at `claimStatement`. False restores
   * the reference's fully synchronous claim.
   */
  readonly asyncClaimCommit?: boolean;
}

/**
 * The outbox store on PostgreSQL. Every statement text is built once here from the configured
 * table and column names (already validated and quoted in `TableNames`), with every value bound
 * as a parameter; the claim and the insert keep a cached plan, the rest are planned per call
 * (see run-statement.ts). Claim, fence and lease rules live in the SQL, so they hold across
 * replicas. The pieces live in files named by role: claim, completion (complete, renew, release),
 * maintenance (reclaim, gauges, next wake), insert, replay.
 */
export function createPostgresOutboxStore(
  sql: postgres.Sql,
  tables: TableNames,
  clock: Clock,
  options: PostgresOutboxStoreOptions = {},
): OutboxStore {
  const claim = createClaim(sql, tables, clock, options.asyncClaimCommit ?? true);
  const { complete, renew, release } = createCompletion(sql, tables, clock);
  const { reclaimExpired, gauges, nextWakeDelayMs } = createMaintenance(sql, tables, clock);
  const insert = createInsert(sql, tables);
  const { replay, distinctTopics } = createReplay(sql, tables, clock);
  return {
    claim,
    complete,
    renew,
    release,
    reclaimExpired,
    gauges,
    nextWakeDelayMs,
    insert,
    distinctTopics,
    replay,
  };
}
