import {
  consoleShape,
  type ConsoleFilter,
  type ConsolePosition,
  type ConsoleShape,
  type ConsoleTable,
} from '@queuebox/core';
import type { Param } from '../connection/run-statement.js';
import type { TableNames } from '../schema/table-names.js';

/**
 * The dead-letter console's statements. Every list is newest first on (created_at, id) and
 * continues after a position with a row comparison, so a page is one range of an index
 * (V12's dead-row indexes for state `dead`, `idx_inbox_state_created` for the inbox) and never
 * a sort of the table. One state or one topic is bound as a plain equality, not `= ANY`, so the
 * planner can match a partial index's predicate. ORDER BY names the table's columns through its
 * alias: bare, `id` would be the output column (`id::text`), a text sort no index serves.
 */

export interface Built {
  readonly text: string;
  readonly params: Param[];
}

/** `WHERE` conditions for a filter; `deadOnly` pins the state for writes. */
export function conditions(
  s: ConsoleShape,
  filter: ConsoleFilter,
  params: Param[],
  deadOnly: boolean,
): string[] {
  const bind = (value: Param) => {
    params.push(value);
    return `$${params.length}`;
  };
  const out: string[] = [];
  if (deadOnly) out.push(`${s.state} = 'dead'`);
  else if (filter.states !== null && filter.states.length === 1)
    out.push(`${s.state} = ${bind(filter.states[0]!)}`);
  else if (filter.states !== null)
    out.push(`${s.state} = ANY(${bind([...filter.states])}::text[])`);
  if (filter.ids !== null) out.push(`${s.id} = ANY(${bind([...filter.ids])}::uuid[])`);
  if (filter.groups !== null && filter.groups.length === 1)
    out.push(`${s.group} = ${bind(filter.groups[0]!)}`);
  else if (filter.groups !== null)
    out.push(`${s.group} = ANY(${bind([...filter.groups])}::text[])`);
  if (filter.from !== null) out.push(`${s.createdAt} >= ${bind(filter.from)}::timestamptz`);
  if (filter.to !== null) out.push(`${s.createdAt} < ${bind(filter.to)}::timestamptz`);
  if (filter.q !== null) out.push(`${s.lastError} ILIKE ${bind(likePattern(filter.q))}`);
  return out;
}

/** A substring pattern in which the searched text's own `%`, `_` and `\` match literally. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

export function listStatement(
  tables: TableNames,
  table: ConsoleTable,
  filter: ConsoleFilter,
  limit: number,
  after: ConsolePosition | null,
): Built {
  const s = consoleShape(tables, table);
  const params: Param[] = [];
  const where = conditions(s, filter, params, false);
  if (after !== null) {
    params.push(after.createdAt, after.id);
    where.push(
      `(${s.createdAt}, ${s.id}) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`,
    );
  }
  params.push(limit);
  const text = `SELECT ${s.id}::text AS "id", ${s.state} AS "state", ${s.group} AS "group",
  ${s.key} AS "key", ${s.attempt} AS "attempt", ${s.createdAt} AS "createdAt",
  ${s.createdAt}::text AS "position", left(${s.lastError}, 500) AS "lastError"
FROM ${s.table} AS t
${where.length === 0 ? '' : `WHERE ${where.join('\n  AND ')}\n`}ORDER BY t.${s.createdAt} DESC, t.${s.id} DESC
LIMIT $${params.length}`;
  return { text, params };
}

export function readStatement(tables: TableNames, table: ConsoleTable): string {
  if (table === 'outbox') {
    const c = tables.outboxColumns;
    return `SELECT ${c.id}::text AS "id", ${c.state} AS "state", ${c.topic} AS "group", ${c.key} AS "key",
  ${c.attempt} AS "attempt", ${c.createdAt} AS "createdAt", ${c.lastError} AS "lastError",
  ${c.payload}::text AS "payload", ${c.headers} AS "headers", ${c.maxAttempts} AS "maxAttempts",
  ${c.scheduledAt} AS "scheduledAt", ${c.updatedAt} AS "updatedAt", ${c.claimedAt} AS "claimedAt",
  ${c.leaseExpiresAt} AS "leaseExpiresAt", ${c.aggregateType} AS "type", NULL AS "aggregateId",
  NULL AS "correlationId", NULL AS "consumption"
FROM ${tables.outbox} WHERE ${c.id} = $1::uuid`;
  }
  const c = tables.inboxColumns;
  return `SELECT ${c.id}::text AS "id", ${c.state} AS "state", ${c.source} AS "group",
  ${c.idempotencyKey} AS "key", ${c.attempt} AS "attempt", ${c.createdAt} AS "createdAt",
  ${c.lastError} AS "lastError", ${c.payload}::text AS "payload", ${c.headers} AS "headers",
  NULL::int AS "maxAttempts", ${c.scheduledAt} AS "scheduledAt", ${c.processedAt} AS "updatedAt",
  ${c.claimedAt} AS "claimedAt", ${c.leaseExpiresAt} AS "leaseExpiresAt", ${c.eventType} AS "type",
  ${c.aggregateId} AS "aggregateId", ${c.correlationId} AS "correlationId",
  ${c.consumption} AS "consumption"
FROM ${tables.inbox} WHERE ${c.id} = $1::uuid`;
}

export function countByStateStatement(tables: TableNames, table: ConsoleTable): string {
  const s = consoleShape(tables, table);
  return `SELECT ${s.state} AS "state", count(*)::int8 AS "count" FROM ${s.table} GROUP BY ${s.state}`;
}

/** A reason is `last_error` up to its first colon (at most 120 characters). */
export function deadGroupsStatement(tables: TableNames, table: ConsoleTable): string {
  const s = consoleShape(tables, table);
  return `SELECT ${s.group} AS "group",
  COALESCE(NULLIF(btrim(left(split_part(${s.lastError}, ':', 1), 120)), ''), '(no error)') AS "reason",
  count(*)::int8 AS "count"
FROM ${s.table}
WHERE ${s.state} = 'dead'
GROUP BY 1, 2
ORDER BY 3 DESC, 1, 2
LIMIT $1`;
}

/**
 * The oldest `limit` matching dead rows, locked and skipped when another call holds them, so two
 * operators pressing the same button never move a row twice. It is a MATERIALIZED CTE, read
 * once: as an `IN (subquery)` the planner may rescan it per outer row, and each rescan skips the
 * rows this statement already changed and takes the next ones, past the limit.
 */
function deadSubquery(
  s: ConsoleShape,
  filter: ConsoleFilter,
  params: Param[],
  limit: number,
): string {
  const where = conditions(s, filter, params, true);
  params.push(limit);
  return `SELECT ${s.id} FROM ${s.table}
  WHERE ${where.join(' AND ')}
  ORDER BY ${s.createdAt}, ${s.id}
  LIMIT $${params.length}
  FOR UPDATE SKIP LOCKED`;
}

export function requeueInboxStatement(
  tables: TableNames,
  filter: ConsoleFilter,
  limit: number,
  now: Date,
): Built {
  const c = tables.inboxColumns;
  const params: Param[] = [now];
  const picked = deadSubquery(consoleShape(tables, 'inbox'), filter, params, limit);
  const text = `WITH picked AS MATERIALIZED (${picked})
UPDATE ${tables.inbox}
SET ${c.state} = 'pending', ${c.attempt} = 0, ${c.scheduledAt} = $1::timestamptz,
    ${c.lastError} = NULL, ${c.claimedAt} = NULL, ${c.processedAt} = NULL,
    ${c.claimToken} = NULL, ${c.leaseExpiresAt} = NULL
WHERE ${c.id} IN (SELECT ${c.id} FROM picked) AND ${c.state} = 'dead'`;
  return { text, params };
}

export function discardStatement(
  tables: TableNames,
  table: ConsoleTable,
  filter: ConsoleFilter,
  limit: number,
): Built {
  const s = consoleShape(tables, table);
  const params: Param[] = [];
  const picked = deadSubquery(s, filter, params, limit);
  return {
    text: `WITH picked AS MATERIALIZED (${picked})
DELETE FROM ${s.table} WHERE ${s.id} IN (SELECT ${s.id} FROM picked) AND ${s.state} = 'dead'`,
    params,
  };
}
