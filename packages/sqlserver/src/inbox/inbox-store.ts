import { randomUUID } from 'node:crypto';
import {
  QueueBoxError,
  StatementGroup,
  type Clock,
  type Fence,
  type InboxStore,
  type NewInboxMessage,
  type RelayClaimedMessage,
  type RelayForward,
  type Settled,
  type StoreOptions,
  type StoreResult,
} from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import type { Session } from '../connection/session.js';
import { callBoundMs, settleWithin } from '../connection/bounded-call.js';
import { sqlServerError } from '../classify-error.js';
import type { TableNames } from '../schema/table-names.js';
import type { Statement } from '../sql/statement.js';
import { claimedMessage, type ClaimedRow } from './inbox-rows.js';
import { inboxStatements, type PendingStore } from './inbox-statements.js';

export interface SqlServerInboxStoreOptions {
  /** `database.connectionTimeoutMs`: part of the bound every call settles within. */
  readonly connectionTimeoutMs: number;
  /** Most rows in one grouped insert; more waiting callers go into the next statement. */
  readonly maxStoreGroup?: number;
}

/** Fourteen parameters a row: 145 rows stay below SQL Server's 2100 parameters per request. */
const MAX_STORE_GROUP = 145;
/** Seven parameters a forwarded row, two a fenced row: chunks below the same cap. */
const ROWS_PER_FORWARD = 250;
const ROWS_PER_FENCED_STATEMENT = 400;
const STORED: StoreResult = { kind: 'stored' };
const DUPLICATE: StoreResult = { kind: 'duplicate' };

/**
 * The InboxStore port on SQL Server (spec §7.4, §8). Concurrent `store` calls share one grouped
 * insert; the relay claims under the reference's app lock `queuebox_inbox_claim_<inboxTableName>`
 * (`inboxTableName` is the configured name unquoted), so a replica of 0.8.1 and this one never
 * claim at the same time. Every call settles within a bound (connection/bounded-call.ts).
 */
export function createSqlServerInboxStore(
  pool: SqlServerPool,
  tables: TableNames,
  inboxTableName: string,
  clock: Clock,
  options: SqlServerInboxStoreOptions,
): InboxStore {
  const s = inboxStatements(tables, inboxTableName);
  const boundMs = callBoundMs(options.connectionTimeoutMs);
  const bounded = <T>(action: string, call: () => Promise<T>): Promise<T> =>
    settleWithin(
      call().catch((error: unknown) => {
        throw sqlServerError(error, action);
      }),
      boundMs,
    );
  const run = <R>(action: string, query: Statement) =>
    bounded(action, () => pool.withSession((session) => session.run<R>(query)));
  const inTransaction = <T>(action: string, work: (session: Session) => Promise<T>) =>
    bounded(action, () => pool.transaction(work));
  const ids = async (action: string, queries: Statement[]): Promise<Set<string>> => {
    const owned = new Set<string>();
    for (const query of queries)
      for (const row of (await run<{ id: string }>(action, query)).rows)
        owned.add(row.id.toLowerCase());
    return owned;
  };

  const insert = async (items: readonly PendingStore[]): Promise<Set<string>> => {
    const { rows } = await run<{ id: string }>('store the message', s.insert(items));
    return new Set(rows.map((row) => row.id.toLowerCase()));
  };
  const outcome = (item: PendingStore, inserted: Set<string>): Settled<StoreResult> => ({
    ok: true,
    value: inserted.has(item.message.id.toLowerCase()) ? STORED : DUPLICATE,
  });

  const group = new StatementGroup<PendingStore, StoreResult>(
    async (items) => {
      try {
        const inserted = await insert(items);
        return items.map((item) => outcome(item, inserted));
      } catch (error: unknown) {
        const failure = error as QueueBoxError;
        // A lost or silent connection: no row is to blame, and each alone would wait it out again.
        if (items.length === 1 || failure.code === 'database_unavailable')
          return items.map(() => ({ ok: false, error: failure }));
        // One bad row (a key longer than its column) or a deadlock with another replica's group
        // (Msg 1205 on the key ranges) must not fail its neighbours: each goes again alone, in order.
        const outcomes: Settled<StoreResult>[] = [];
        for (const item of items) {
          try {
            outcomes.push(outcome(item, await insert([item])));
          } catch (single: unknown) {
            outcomes.push({ ok: false, error: single });
          }
        }
        return outcomes;
      }
    },
    Math.min(options.maxStoreGroup ?? MAX_STORE_GROUP, MAX_STORE_GROUP),
  );

  return {
    store(message: NewInboxMessage, storeOptions: StoreOptions): Promise<StoreResult> {
      return group.submit({ message, options: storeOptions, createdAt: clock.now() });
    },

    async claimForRelay(limit: number, lease: number): Promise<RelayClaimedMessage[]> {
      const leaseMs = Math.round(lease);
      checkClaim(limit, leaseMs);
      const now = clock.now();
      const rows = await inTransaction('claim inbox rows for the relay', async (session) => {
        // Spec §8.2: the busy aggregates are read first, under the lock, and bound into the claim.
        const busy = (await session.run<{ aggregateId: string }>(s.lockAndBusy())).rows.map(
          (row) => row.aggregateId,
        );
        const claimed = (await session.run<{ id: string }>(s.claim(busy, limit, leaseMs, now)))
          .rows;
        if (claimed.length === 0) return [];
        return (await session.run<ClaimedRow>(s.reread(claimed.map((r) => r.id)))).rows;
      });
      return rows.map(claimedMessage);
    },

    async forward(forwards: readonly RelayForward[]): Promise<Set<string>> {
      if (forwards.length === 0) return new Set();
      const now = clock.now();
      const outboxIds = forwards.map((f) => f.outbox.id ?? randomUUID());
      const owned = await inTransaction('forward inbox rows', async (session) => {
        const held = new Set<string>();
        for (let i = 0; i < forwards.length; i += ROWS_PER_FORWARD) {
          const chunk = s.forward(
            forwards.slice(i, i + ROWS_PER_FORWARD),
            outboxIds.slice(i, i + ROWS_PER_FORWARD),
            now,
          );
          for (const row of (await session.run<{ id: string }>(chunk)).rows)
            held.add(row.id.toLowerCase());
        }
        return held;
      });
      return asGiven(
        forwards.map((f) => f.fence),
        owned,
      );
    },

    async markDead(fences: readonly Fence[]): Promise<Set<string>> {
      if (fences.length === 0) return new Set();
      const owned = await ids('mark inbox rows dead', chunks(fences).map(s.markDead));
      return asGiven(fences, owned);
    },

    async renew(fences: readonly Fence[], lease: number): Promise<Set<string>> {
      if (fences.length === 0) return new Set();
      const leaseMs = Math.round(lease);
      checkClaim(1, leaseMs);
      const owned = await ids(
        'renew inbox leases',
        chunks(fences).map((chunk) => s.renew(chunk, leaseMs)),
      );
      return asGiven(fences, owned);
    },

    async reclaimExpired(): Promise<number> {
      return (await run('reclaim inbox rows', s.reclaim())).rowCount;
    },

    async oldestPendingAgeSeconds(): Promise<number> {
      const [row] = (
        await run<{ ageMs: number | string | null }>('read the inbox gauge', s.oldestPending())
      ).rows;
      const ageMs = row?.ageMs === null || row?.ageMs === undefined ? 0 : Number(row.ageMs);
      return Math.max(ageMs, 0) / 1000;
    },
  };
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += ROWS_PER_FENCED_STATEMENT)
    out.push(items.slice(i, i + ROWS_PER_FENCED_STATEMENT));
  return out;
}

/** Callers compare ids as they passed them; SQL Server returns uniqueidentifiers upper-cased. */
function asGiven(given: readonly Fence[], owned: Set<string>): Set<string> {
  return new Set(given.map((g) => g.id).filter((id) => owned.has(id.toLowerCase())));
}

function checkClaim(limit: number, leaseMs: number): void {
  if (!Number.isInteger(limit) || limit <= 0)
    throw new QueueBoxError('internal', `A claim needs a batch size > 0, not ${limit}.`);
  if (!Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > 2 ** 31 - 1)
    throw new QueueBoxError(
      'internal',
      `A lease must be a whole number of ms in [1, 2^31-1], not ${leaseMs}.`,
    );
}
