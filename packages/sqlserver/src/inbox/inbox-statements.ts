import type { Fence, NewInboxMessage, RelayForward, StoreOptions } from '@queuebox/core';
import type { TableNames } from '../schema/table-names.js';
import {
  bigint,
  datetime2,
  int,
  nvarchar,
  nvarcharMax,
  statement,
  uuid,
  varchar,
  type Param,
  type Statement,
} from '../sql/statement.js';
import * as relay from './inbox-relay-sql.js';
import * as sql from './inbox-sql.js';

/** One call of the grouped insert: the message, its options, and the app clock at receipt. */
export interface PendingStore {
  readonly message: NewInboxMessage;
  readonly options: StoreOptions;
  readonly createdAt: Date;
}

/** The outbox column default (spec §3.2), for a forward that names no ceiling. */
const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * The inbox statements with their parameters bound: what the store sends, and what the
 * statement-parse test reads. Fenced batches go in id order, so two batches over the same rows
 * lock them in one order; the forward keeps the order given (the outbox sequence follows it).
 */
export function inboxStatements(tables: TableNames, inboxTableName: string) {
  return {
    insert: (items: readonly PendingStore[]): Statement =>
      statement(
        sql.insertStatement(tables, items.length),
        items.flatMap(({ message: m, options, createdAt }, i): Param[] => [
          uuid(`id${i}`, m.id),
          nvarchar(`source${i}`, m.source),
          nvarchar(`idempotencyKey${i}`, m.idempotencyKey),
          nvarchar(`aggregateId${i}`, m.aggregateId),
          nvarchar(`eventType${i}`, m.eventType),
          // The received text as it is: no number passes through a double.
          nvarcharMax(`payload${i}`, m.payload.text),
          nvarcharMax(`headers${i}`, JSON.stringify(m.headers)),
          nvarchar(`correlationId${i}`, m.correlationId),
          varchar(`consumption${i}`, m.consumption),
          nvarchar(`state${i}`, options.dead === true ? 'dead' : 'pending'),
          datetime2(`createdAt${i}`, createdAt),
          datetime2(`publishTime${i}`, m.publishTime),
          // storeDead of spec §7.4 has no delay: the row is never claimable anyway.
          bigint(
            `delayMs${i}`,
            options.dead === true ? 0 : Math.max(0, Math.round(options.initialDelayMs)),
          ),
          nvarcharMax(`lastError${i}`, options.dead === true ? (options.lastError ?? null) : null),
        ]),
      ),
    reclaim: (): Statement => statement(sql.reclaimStatement(tables)),
    oldestPending: (): Statement => statement(sql.oldestPendingStatement(tables)),
    lockAndBusy: (): Statement => statement(relay.lockAndBusyStatement(tables, inboxTableName)),
    claim: (busy: readonly string[], limit: number, leaseMs: number, now: Date): Statement => {
      const bound = busy.length <= relay.MAX_BOUND_BUSY;
      return statement(relay.claimStatement(tables, bound ? busy.length : 'subquery'), [
        int('limit', limit),
        datetime2('now', now),
        int('leaseMs', leaseMs),
        ...(bound ? busy.map((aggregateId, i) => nvarchar(`busy${i}`, aggregateId)) : []),
      ]);
    },
    reread: (ids: readonly string[]): Statement =>
      statement(
        relay.rereadStatement(tables, ids.length),
        ids.map((id, i) => uuid(`id${i}`, id)),
      ),
    forward: (forwards: readonly RelayForward[], outboxIds: readonly string[], now: Date) =>
      statement(relay.forwardStatement(tables, forwards.length), [
        datetime2('now', now),
        ...forwards.flatMap((f, i): Param[] => [
          uuid(`id${i}`, f.fence.id),
          uuid(`token${i}`, f.fence.claimToken),
          uuid(`outboxId${i}`, outboxIds[i]!),
          nvarchar(`topic${i}`, f.outbox.topic),
          nvarchar(`key${i}`, f.outbox.key ?? null),
          nvarcharMax(`headers${i}`, JSON.stringify(f.outbox.headers ?? {})),
          int(`maxAttempts${i}`, f.outbox.maxAttempts ?? DEFAULT_MAX_ATTEMPTS),
        ]),
      ]),
    markDead: (fences: readonly Fence[]): Statement =>
      statement(relay.markDeadStatement(tables, fences.length), fenceParams(fences)),
    renew: (fences: readonly Fence[], leaseMs: number): Statement =>
      statement(relay.renewStatement(tables, fences.length), [
        int('leaseMs', leaseMs),
        ...fenceParams(fences),
      ]),
  };
}

function fenceParams(fences: readonly Fence[]): Param[] {
  return [...fences]
    .sort((a, b) => {
      const x = a.id.toLowerCase();
      const y = b.id.toLowerCase();
      return x < y ? -1 : x > y ? 1 : 0;
    })
    .flatMap((f, i) => [uuid(`id${i}`, f.id), uuid(`token${i}`, f.claimToken)]);
}
