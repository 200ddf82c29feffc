import type { Clock, OutboxStore } from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import type { TableNames } from '../schema/table-names.js';
import { outboxCalls } from './outbox-calls.js';
import { createClaim } from './outbox-claim.js';
import { createCompletion } from './outbox-completion.js';
import { createInsert } from './outbox-insert.js';
import { createMaintenance } from './outbox-maintenance.js';
import { createReplay } from './outbox-replay.js';
import { outboxStatements } from './outbox-statements.js';

/**
 * The outbox store on SQL Server. Claim, fence and lease rules are SQL (outbox-sql.ts), so they
 * hold across replicas. `outboxTableName` is the configured name unquoted: it names the claim's
 * app lock, as in the reference. The pieces live in files named by role, as on PostgreSQL:
 * claim, completion (complete, renew, release), maintenance (reclaim, gauges, next wake),
 * insert, replay.
 */
export function createSqlServerOutboxStore(
  pool: SqlServerPool,
  tables: TableNames,
  outboxTableName: string,
  clock: Clock,
): OutboxStore {
  const s = outboxStatements(tables, outboxTableName);
  const calls = outboxCalls(pool);
  return {
    claim: createClaim(pool, s, clock),
    ...createCompletion(calls, s, clock),
    ...createMaintenance(calls, s, clock),
    insert: createInsert(pool, s),
    ...createReplay(calls, s, clock),
  };
}
