import {
  JsonPayload,
  QueueBoxError,
  type ClaimedOutboxMessage,
  type Clock,
  type Fence,
  type OutboxCompletion,
  type OutboxState,
  type OutboxStore,
} from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import { sqlServerError } from '../classify-error.js';
import type { TableNames } from '../schema/table-names.js';
import type { Statement } from '../sql/statement.js';
import { outboxStatements } from './outbox-statements.js';

/** SQL Server caps a request at 2100 parameters; fenced batches go in chunks below it. */
const ROWS_PER_FENCED_STATEMENT = 400;

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
 * The outbox store on SQL Server. Claim, fence and lease rules are SQL (outbox-sql.ts), so they
 * hold across replicas. `outboxTableName` is the configured name unquoted: it names the claim's
 * app lock, as in the reference.
 */
export function createSqlServerOutboxStore(
  pool: SqlServerPool,
  tables: TableNames,
  outboxTableName: string,
  clock: Clock,
): OutboxStore {
  const s = outboxStatements(tables, outboxTableName);
  const run = async <R>(action: string, query: Statement) => {
    try {
      return await pool.withSession((session) => session.run<R>(query));
    } catch (error: unknown) {
      throw sqlServerError(error, action);
    }
  };
  const ids = async (action: string, queries: Statement[]): Promise<Set<string>> => {
    const owned = new Set<string>();
    for (const query of queries) {
      for (const row of (await run<{ id: string }>(action, query)).rows)
        owned.add(row.id.toLowerCase());
    }
    return owned;
  };
  const chunks = <T>(items: readonly T[]): T[][] => {
    const out: T[][] = [];
    for (let i = 0; i < items.length; i += ROWS_PER_FENCED_STATEMENT)
      out.push(items.slice(i, i + ROWS_PER_FENCED_STATEMENT));
    return out;
  };
  // Callers compare ids as they passed them; SQL Server returns uniqueidentifiers upper-cased.
  const asGiven = (given: readonly { id: string }[], owned: Set<string>) =>
    new Set(given.map((g) => g.id).filter((id) => owned.has(id.toLowerCase())));

  return {
    async claim(limit, leaseMs) {
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
    },
    async complete(completions: readonly OutboxCompletion[]) {
      if (completions.length === 0) return new Set();
      const now = clock.now();
      const owned = await ids(
        'complete outbox rows',
        chunks(completions).map((chunk) => s.complete(chunk, now)),
      );
      return asGiven(
        completions.map((c) => c.fence),
        owned,
      );
    },
    async renew(fences: readonly Fence[], leaseMs: number) {
      if (fences.length === 0) return new Set();
      checkLease(leaseMs);
      const owned = await ids(
        'renew outbox leases',
        chunks(fences).map((f) => s.renew(f, leaseMs)),
      );
      return asGiven(fences, owned);
    },
    async release(fences: readonly Fence[]) {
      if (fences.length === 0) return new Set();
      const now = clock.now();
      const owned = await ids(
        'release outbox rows',
        chunks(fences).map((f) => s.release(f, now)),
      );
      return asGiven(fences, owned);
    },
    async reclaimExpired() {
      return (await run('reclaim outbox rows', s.reclaim(clock.now()))).rowCount;
    },
    async gauges() {
      const [row] = (
        await run<{ pending: number; ageMs: number | string | null }>(
          'read the outbox gauges',
          s.gauges(clock.now()),
        )
      ).rows;
      const ageMs = row?.ageMs === null || row?.ageMs === undefined ? 0 : Number(row.ageMs);
      return {
        pending: Number(row?.pending ?? 0),
        oldestPendingAgeSeconds: Math.max(ageMs, 0) / 1000,
      };
    },
    async nextWakeDelayMs(maxMs: number) {
      try {
        const [row] = (
          await run<{ scheduleMs: number | string | null; leaseMs: number | string | null }>(
            'read the next outbox deadline',
            s.nextWake(clock.now()),
          )
        ).rows;
        const deadlines = [row?.scheduleMs, row?.leaseMs].flatMap((v) =>
          v === null || v === undefined ? [] : [Number(v)],
        );
        const nearest = deadlines.length === 0 ? maxMs : Math.min(...deadlines);
        return Math.min(Math.max(Math.ceil(nearest), 1), maxMs);
      } catch {
        return maxMs;
      }
    },
    async insert(messages) {
      if (messages.length === 0) return;
      try {
        // Eight parameters a row: 250 rows per batch stays below the 2100-parameter cap.
        await pool.transaction(async (session) => {
          for (let i = 0; i < messages.length; i += 250)
            await session.run(s.insert(messages.slice(i, i + 250)));
        });
      } catch (error: unknown) {
        throw sqlServerError(error, 'insert outbox rows');
      }
    },
    async distinctTopics() {
      return (await run<{ topic: string }>('list outbox topics', s.distinctTopics())).rows.map(
        (row) => row.topic,
      );
    },
    async replay(filter) {
      const present = [filter.ids, filter.topics, filter.createdAfter, filter.createdBefore].some(
        (part) => part !== undefined && part !== null,
      );
      if (!present) throw new QueueBoxError('internal', 'A replay needs at least one filter.');
      if ((filter.ids && filter.ids.length === 0) || (filter.topics && filter.topics.length === 0))
        return 0;
      return (await run('replay outbox rows', s.replay(filter, clock.now()))).rowCount;
    },
  };
}

function checkLease(leaseMs: number): void {
  if (!Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > 2 ** 31 - 1) {
    throw new QueueBoxError(
      'internal',
      `A lease must be a whole number of ms in [1, 2^31-1], not ${leaseMs}.`,
    );
  }
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
