import {
  JsonPayload,
  QueueBoxError,
  type ClaimedOutboxMessage,
  type Clock,
  type OutboxState,
  type OutboxStore,
} from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import { sqlServerError } from '../classify-error.js';
import { checkLease, type OutboxStatements } from './outbox-calls.js';

interface ClaimedRow {
  id: string;
  topic: string;
  key: string | null;
  aggregateType: string | null;
  payload: string;
  headers: string;
  state: string;
  attempt: number;
  maxAttempts: number;
  scheduledAt: Date;
  createdAt: Date;
  sequence: string | null;
  lastError: string | null;
  claimToken: string;
}

/**
 * The claim (spec §4.2): one transaction marks the rows under the table's app lock, then reads
 * them back, so the lock and the marks commit together. It does not take the claim's `passOver`
 * (ClaimOptions): T-SQL before SQL Server 2025 has no regular expressions to test a topic glob
 * with, so the poller hands the rows of a blocked destination back itself (see docs/decisions.md).
 */
export function createClaim(
  pool: SqlServerPool,
  s: OutboxStatements,
  clock: Clock,
): OutboxStore['claim'] {
  return async (limit, leaseMs) => {
    checkLease(leaseMs);
    if (!Number.isInteger(limit) || limit <= 0)
      throw new QueueBoxError('internal', `A claim needs a batch size > 0, not ${limit}.`);
    const now = clock.now();
    try {
      const rows = await pool.transaction(async (session) => {
        const claimed = (await session.run<{ id: string }>(s.claim(limit, leaseMs, now))).rows;
        if (claimed.length === 0) return [];
        return (await session.run<ClaimedRow>(s.reread(claimed.map((r) => r.id)))).rows;
      });
      return rows.map(toMessage).sort(byScheduleThenCreation);
    } catch (error: unknown) {
      throw sqlServerError(error, 'claim outbox rows');
    }
  };
}

function toMessage(row: ClaimedRow): ClaimedOutboxMessage {
  return {
    id: row.id.toLowerCase(),
    topic: row.topic,
    key: row.key,
    aggregateType: row.aggregateType,
    payload: JsonPayload.fromText(row.payload),
    headers: JSON.parse(row.headers) as ClaimedOutboxMessage['headers'],
    state: row.state as OutboxState,
    attempt: row.attempt,
    maxAttempts: row.maxAttempts,
    scheduledAt: row.scheduledAt,
    createdAt: row.createdAt,
    sequence: row.sequence === null ? null : BigInt(row.sequence),
    lastError: row.lastError,
    claimToken: row.claimToken.toLowerCase(),
  };
}

/** Spec §4.2: OUTPUT order is undefined; (scheduled_at, created_at), then sequence. */
function byScheduleThenCreation(a: ClaimedOutboxMessage, b: ClaimedOutboxMessage): number {
  const seq = (x: bigint | null, y: bigint | null) =>
    x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
  return (
    a.scheduledAt.getTime() - b.scheduledAt.getTime() ||
    a.createdAt.getTime() - b.createdAt.getTime() ||
    seq(a.sequence, b.sequence)
  );
}
