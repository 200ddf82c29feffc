import {
  javaStringHashCode,
  StatementGroup,
  type Settled,
  type QueueBoxError,
  type RelayClaimedMessage,
  type Clock,
  type Fence,
  type InboxStore,
  type NewInboxMessage,
  type RelayForward,
  type StoreOptions,
  type StoreResult,
} from '@queuebox/core';
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { postgresError } from '../classify-error.js';
import { claimedMessage, unquoted, type ClaimedRow } from './inbox-rows.js';
import { inboxRelaySql, relayCandidateWindow } from './inbox-relay-sql.js';
import { inboxStoreSql } from './inbox-sql.js';
import { pipelinedTransaction } from '../connection/pipelined-transaction.js';
import { runBounded } from '../connection/bounded-statement.js';
import type { TableNames } from '../schema/table-names.js';

export interface PostgresInboxStoreOptions {
  /** Most rows in one grouped insert; more waiting callers go into the next statement. */
  readonly maxStoreGroup?: number;
}

const DEFAULT_MAX_STORE_GROUP = 500;
const STORED: StoreResult = { kind: 'stored' };
const DUPLICATE: StoreResult = { kind: 'duplicate' };
const PREPARED = { prepare: true } as const;

interface PendingStore {
  readonly message: NewInboxMessage;
  readonly options: StoreOptions;
  /** The app clock when `store` was called: `created_at` is the time of receipt. */
  readonly createdAt: Date;
}

/**
 * The InboxStore port on PostgreSQL (spec §7.4, §8). Concurrent `store` calls share one
 * multi-row insert; the relay side is batched (one claim, one forward statement per batch).
 * `tables` holds the configured names, validated and quoted; the relay's advisory lock key is
 * derived from the inbox table name as configured, exactly as the reference derives it, so a
 * replica of 0.8.1 and this one never claim at the same time.
 */
export function createPostgresInboxStore(
  sql: postgres.Sql,
  tables: TableNames,
  clock: Clock,
  options: PostgresInboxStoreOptions = {},
): InboxStore {
  const storeSql = inboxStoreSql(tables);
  const relaySql = inboxRelaySql(tables);
  const lockKey = String(javaStringHashCode(unquoted(tables.inbox)));

  const insert = async (items: readonly PendingStore[]): Promise<Set<string>> => {
    const rows = await runBounded<{ id: string }>(
      sql,
      storeSql.insert,
      insertParameters(items),
      PREPARED,
    );
    return new Set(rows.map((row) => row.id));
  };

  const group = new StatementGroup<PendingStore, StoreResult>(async (items) => {
    try {
      const inserted = await insert(items);
      return items.map((item) => ({
        ok: true,
        value: inserted.has(item.message.id) ? STORED : DUPLICATE,
      }));
    } catch (error: unknown) {
      const failure = storeError(error);
      // A lost or silent connection, a server that refuses work: no row of the group is to
      // blame, so each on its own would only wait out the same bound again, one after another.
      if (items.length === 1 || failure.code === 'database_unavailable')
        return items.map(() => ({ ok: false, error: failure }));
      // One bad row (a key longer than its column, a payload jsonb refuses) or a deadlock with
      // another replica's group must not fail its neighbours: each row goes again on its own,
      // in the same order.
      const outcomes: Settled<StoreResult>[] = [];
      for (const item of items) {
        try {
          const inserted = await insert([item]);
          outcomes.push({ ok: true, value: inserted.has(item.message.id) ? STORED : DUPLICATE });
        } catch (single: unknown) {
          outcomes.push({ ok: false, error: storeError(single) });
        }
      }
      return outcomes;
    }
  }, options.maxStoreGroup ?? DEFAULT_MAX_STORE_GROUP);

  return {
    store(message: NewInboxMessage, storeOptions: StoreOptions): Promise<StoreResult> {
      return group.submit({ message, options: storeOptions, createdAt: clock.now() });
    },

    async claimForRelay(limit: number, leaseMs: number): Promise<RelayClaimedMessage[]> {
      // Sent as one pipeline, executed in order: the lock first, so the claim's snapshot is
      // taken after the previous holder committed and sees that holder's processing rows.
      // The claim commits without waiting for its WAL flush: a claim lost in a crash only
      // returns rows to pending. A crash loses a suffix of the WAL, so a forward made under a
      // lost claim is lost with it (see the forward statement), never the other way round.
      const [, , rows] = await pipelinedTransaction(sql, [
        { text: relaySql.claimSettings },
        { text: relaySql.claimLock, params: [lockKey] },
        {
          text: relaySql.claim,
          params: [limit, relayCandidateWindow(limit), clock.now(), Math.round(leaseMs)],
        },
      ]);
      return (rows as ClaimedRow[]).map(claimedMessage);
    },

    async forward(forwards: readonly RelayForward[]): Promise<Set<string>> {
      if (forwards.length === 0) return new Set();
      const parameters = [
        forwards.map((f) => f.fence.id),
        forwards.map((f) => f.fence.claimToken),
        forwards.map((f) => f.outbox.id ?? randomUUID()),
        forwards.map((f) => f.outbox.topic),
        forwards.map((f) => f.outbox.key ?? null),
        forwards.map((f) => JSON.stringify(f.outbox.headers ?? {})),
        forwards.map((f) => f.outbox.maxAttempts ?? DEFAULT_MAX_ATTEMPTS),
        clock.now(),
      ];
      return idsOf(await runBounded<{ id: string }>(sql, relaySql.forward, parameters, PREPARED));
    },

    async markDead(fences: readonly Fence[]): Promise<Set<string>> {
      if (fences.length === 0) return new Set();
      return idsOf(
        await runBounded<{ id: string }>(sql, relaySql.markDead, fenceParameters(fences), PREPARED),
      );
    },

    async renew(fences: readonly Fence[], leaseMs: number): Promise<Set<string>> {
      if (fences.length === 0) return new Set();
      const parameters = [...fenceParameters(fences), Math.round(leaseMs)];
      return idsOf(await runBounded<{ id: string }>(sql, relaySql.renew, parameters, PREPARED));
    },

    async reclaimExpired(): Promise<number> {
      const result = await runBounded(sql, storeSql.reclaimExpired, [], PREPARED);
      return result.count;
    },

    async oldestPendingAgeSeconds(): Promise<number> {
      const [row] = await runBounded<{ age: number }>(
        sql,
        storeSql.oldestPendingAgeSeconds,
        [],
        PREPARED,
      );
      return row?.age ?? 0;
    },
  };
}

/**
 * A failed store as a QueueBoxError whose `retryable` tells a poison message (the row can never
 * be stored: a broker source stores it dead and acknowledges) from an outage (requeue, retry).
 */
function storeError(error: unknown): QueueBoxError {
  return postgresError(error, 'store the message');
}

/** The outbox column default (spec §3.2), for a forward that names no ceiling. */
const DEFAULT_MAX_ATTEMPTS = 5;

type Cell = string | number | null;

/** The fourteen bound arrays of the grouped insert, one element per call. */
function insertParameters(items: readonly PendingStore[]): Cell[][] {
  const columns: Cell[][] = Array.from({ length: 14 }, () => new Array<Cell>(items.length));
  items.forEach(({ message: m, options, createdAt }, i) => {
    const row: Cell[] = [
      m.id,
      m.source,
      m.idempotencyKey,
      m.aggregateId,
      m.eventType,
      // The received text as it is: PostgreSQL parses it, so no number passes through a double.
      m.payload.text,
      JSON.stringify(m.headers),
      m.correlationId,
      m.consumption,
      options.dead === true ? 'dead' : 'pending',
      createdAt.toISOString(),
      m.publishTime?.toISOString() ?? null,
      // storeDead of spec §7.4 has no delay: the row is never claimable anyway.
      options.dead === true ? 0 : Math.max(0, Math.round(options.initialDelayMs)),
      options.dead === true ? (options.lastError ?? null) : null,
    ];
    row.forEach((value, column) => {
      columns[column]![i] = value;
    });
  });
  return columns;
}

function fenceParameters(fences: readonly Fence[]): string[][] {
  return [fences.map((f) => f.id), fences.map((f) => f.claimToken)];
}

function idsOf(rows: readonly { id: string }[]): Set<string> {
  return new Set(rows.map((row) => row.id));
}
