import type { Fence, NewOutboxMessage, OutboxCompletion, ReplayFilter } from '@queuebox/core';
import type { TableNames } from '../schema/table-names.js';
import {
  datetime2,
  int,
  nvarchar,
  nvarcharMax,
  statement,
  uuid,
  type Param,
  type Statement,
} from '../sql/statement.js';
import * as sql from './outbox-sql.js';

/**
 * The outbox statements with their parameters bound: what the store sends, and what the
 * statement-parse test reads. Rows go in id order, so a completion batch and a renewal batch over
 * the same in-flight rows lock in one order and cannot deadlock each other.
 */
export function outboxStatements(tables: TableNames, outboxTableName: string) {
  return {
    claim: (limit: number, leaseMs: number, now: Date): Statement =>
      statement(sql.claimStatement(tables, outboxTableName), [
        int('limit', limit),
        datetime2('now', now),
        int('leaseMs', leaseMs),
      ]),
    reread: (ids: readonly string[]): Statement =>
      statement(
        sql.rereadStatement(tables, ids.length),
        ids.map((id, i) => uuid(`id${i}`, id)),
      ),
    complete: (completions: readonly OutboxCompletion[], now: Date): Statement => {
      const ordered = byId(completions, (c) => c.fence.id);
      return statement(sql.completeStatement(tables, ordered.length), [
        datetime2('now', now),
        ...ordered.flatMap((c, i): Param[] => [
          uuid(`id${i}`, c.fence.id),
          uuid(`token${i}`, c.fence.claimToken),
          nvarchar(`kind${i}`, c.kind),
          int(`delay${i}`, c.kind === 'retry' ? Math.round(c.delayMs) : null),
          nvarcharMax(`error${i}`, c.kind === 'sent' ? null : c.error),
        ]),
      ]);
    },
    renew: (fences: readonly Fence[], leaseMs: number): Statement =>
      statement(sql.renewStatement(tables, fences.length), [
        int('leaseMs', leaseMs),
        ...fenceParams(fences),
      ]),
    release: (fences: readonly Fence[], now: Date): Statement =>
      statement(sql.releaseStatement(tables, fences.length), [
        datetime2('now', now),
        ...fenceParams(fences),
      ]),
    reclaim: (now: Date): Statement =>
      statement(sql.reclaimStatement(tables), [datetime2('now', now)]),
    gauges: (now: Date): Statement =>
      statement(sql.gaugesStatement(tables), [datetime2('now', now)]),
    nextWake: (now: Date): Statement =>
      statement(sql.nextWakeStatement(tables), [datetime2('now', now)]),
    insert: (messages: readonly NewOutboxMessage[]): Statement =>
      statement(
        sql.insertStatement(tables, messages.length),
        messages.flatMap((m, i): Param[] => [
          uuid(`id${i}`, m.id ?? null),
          nvarchar(`topic${i}`, m.topic),
          nvarchar(`key${i}`, m.key ?? null),
          nvarchar(`aggregateType${i}`, m.aggregateType ?? null),
          nvarcharMax(`payload${i}`, JSON.stringify(m.payload)),
          nvarcharMax(`headers${i}`, m.headers === undefined ? null : JSON.stringify(m.headers)),
          int(`maxAttempts${i}`, m.maxAttempts ?? null),
          datetime2(`scheduledAt${i}`, m.scheduledAt ?? null),
        ]),
      ),
    replay: (filter: ReplayFilter, now: Date): Statement => {
      const ids = filter.ids ?? undefined;
      const topics = filter.topics ?? undefined;
      const text = sql.replayStatement(tables, {
        ...(ids ? { ids: ids.length } : {}),
        ...(topics ? { topics: topics.length } : {}),
        createdAfter: Boolean(filter.createdAfter),
        createdBefore: Boolean(filter.createdBefore),
      });
      return statement(text, [
        datetime2('now', now),
        ...(ids ?? []).map((id, i) => uuid(`id${i}`, id)),
        ...(topics ?? []).map((topic, i) => nvarchar(`topic${i}`, topic)),
        ...(filter.createdAfter ? [datetime2('createdAfter', filter.createdAfter)] : []),
        ...(filter.createdBefore ? [datetime2('createdBefore', filter.createdBefore)] : []),
      ]);
    },
    distinctTopics: (): Statement => statement(sql.distinctTopicsStatement(tables)),
  };
}

function fenceParams(fences: readonly Fence[]): Param[] {
  return byId(fences, (f) => f.id).flatMap((f, i) => [
    uuid(`id${i}`, f.id),
    uuid(`token${i}`, f.claimToken),
  ]);
}

function byId<T>(items: readonly T[], id: (item: T) => string): T[] {
  return [...items].sort((a, b) => {
    const x = id(a).toLowerCase();
    const y = id(b).toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
