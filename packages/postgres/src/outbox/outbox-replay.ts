import { QueueBoxError, type Clock, type ReplayFilter } from '@queuebox/core';
import type postgres from 'postgres';
import { countPlanned, runPlanned, type Param } from '../connection/run-statement.js';
import type { TableNames } from '../schema/table-names.js';

/**
 * The operator's tools on the outbox (spec §11.6): replay and the topic list that the admin
 * layer routes to resolve `destination`.
 */

type FilterPart = 'ids' | 'topics' | 'createdAfter' | 'createdBefore';
const PARTS: readonly FilterPart[] = ['ids', 'topics', 'createdAfter', 'createdBefore'];

/**
 * One statement text per combination of present filters (at most 15, built on first use and then
 * reused), so each can use the primary key or the topic index instead of a catch-all
 * `($n IS NULL OR …)` plan. The state filter is always there and cannot be
 * widened: pending and processing rows never move.
 */
export function replayStatement(tables: TableNames, present: readonly FilterPart[]): string {
  const c = tables.outboxColumns;
  const conditions = [`${c.state} IN ('sent', 'dead')`];
  present.forEach((part, index) => {
    const p = `$${index + 2}`;
    switch (part) {
      case 'ids':
        conditions.push(`${c.id} = ANY(${p}::uuid[])`);
        break;
      case 'topics':
        conditions.push(`${c.topic} = ANY(${p}::text[])`);
        break;
      case 'createdAfter':
        conditions.push(`${c.createdAt} > ${p}::timestamptz`);
        break;
      case 'createdBefore':
        conditions.push(`${c.createdAt} < ${p}::timestamptz`);
        break;
    }
  });
  // The row keeps id, sequence, payload and headers: a replayed keyed row is the head of its key
  // again and goes after the rows that passed it.
  return `UPDATE ${tables.outbox}
SET ${c.state} = 'pending', ${c.attempt} = 0, ${c.lastError} = NULL,
    ${c.scheduledAt} = $1::timestamptz, ${c.updatedAt} = $1::timestamptz,
    ${c.claimedAt} = NULL, ${c.claimToken} = NULL, ${c.leaseExpiresAt} = NULL
WHERE ${conditions.join('\n  AND ')}`;
}

/** A loose index scan over idx_outbox_topic: one probe per distinct topic, not a table scan. */
export function distinctTopicsStatement(tables: TableNames): string {
  const t = tables.outbox;
  const topic = tables.outboxColumns.topic;
  return `WITH RECURSIVE topics(topic) AS (
  (SELECT ${topic} FROM ${t} ORDER BY ${topic} LIMIT 1)
  UNION ALL
  SELECT (SELECT next.${topic} FROM ${t} AS next WHERE next.${topic} > topics.topic ORDER BY next.${topic} LIMIT 1)
  FROM topics WHERE topics.topic IS NOT NULL
)
SELECT topic AS "topic" FROM topics WHERE topic IS NOT NULL`;
}

export function createReplay(sql: postgres.Sql, tables: TableNames, clock: Clock) {
  const statements = new Map<string, string>();
  const topicsText = distinctTopicsStatement(tables);

  async function replay(filter: ReplayFilter): Promise<number> {
    const values: Record<FilterPart, Param | undefined> = {
      ids: filter.ids ?? undefined,
      topics: filter.topics ?? undefined,
      createdAfter: filter.createdAfter ?? undefined,
      createdBefore: filter.createdBefore ?? undefined,
    };
    const present = PARTS.filter((part) => values[part] !== undefined);
    if (present.length === 0) {
      // The admin route answers 400 first; refusing here too keeps a caller that skipped that
      // check from moving every sent and dead row at once.
      throw new QueueBoxError('internal', 'A replay needs at least one filter.');
    }
    // An explicitly empty list matches nothing, so the other filters cannot widen it.
    if ((filter.ids && filter.ids.length === 0) || (filter.topics && filter.topics.length === 0))
      return 0;
    const shape = present.join(',');
    let text = statements.get(shape);
    if (text === undefined) {
      text = replayStatement(tables, present);
      statements.set(shape, text);
    }
    const params: Param[] = [clock.now(), ...present.map((part) => values[part] as Param)];
    return countPlanned(sql, text, params);
  }

  async function distinctTopics(): Promise<string[]> {
    const rows = await runPlanned<{ topic: string }>(sql, topicsText, []);
    return rows.map((row) => row.topic);
  }

  return { replay, distinctTopics };
}
