import {
  consoleShape,
  type ConsoleFilter,
  type ConsolePosition,
  type ConsoleShape,
  type ConsoleTable,
} from '@queuebox/core';
import type { TableNames } from '../schema/table-names.js';
import {
  datetime2,
  int,
  nvarchar,
  statement,
  uuid,
  varchar,
  type Param,
  type Statement,
} from '../sql/statement.js';

/**
 * The dead-letter console's statements on SQL Server, the PostgreSQL ones' twins: lists newest
 * first on (created_at, id) continued after a position, reads, counts, and the bounded inbox
 * requeue and dead-row discard. A position's time travels as text (style 126, all seven
 * fractional digits) and is converted back in the statement: a JavaScript Date would drop the
 * sub-millisecond part and a page would repeat or skip rows.
 */

/**
 * A substring pattern for `LIKE`: the text's own `%`, `_` and `[` match literally, each written
 * as a one-character class (T-SQL's own escape, no ESCAPE clause needed).
 */
export function likePattern(text: string): string {
  return `%${text.replace(/[%_[]/g, (ch) => `[${ch}]`)}%`;
}

function conditions(
  s: ConsoleShape,
  filter: ConsoleFilter,
  params: Param[],
  deadOnly: boolean,
): string[] {
  const list = (prefix: string, values: readonly string[], make: (n: string, v: string) => Param) =>
    values
      .map((value, i) => {
        params.push(make(`${prefix}${i}`, value));
        return `@${prefix}${i}`;
      })
      .join(', ');
  const out: string[] = [];
  if (deadOnly) out.push(`${s.state} = 'dead'`);
  else if (filter.states !== null)
    out.push(`${s.state} IN (${list('state', filter.states, nvarchar)})`);
  if (filter.ids !== null) out.push(`${s.id} IN (${list('id', filter.ids, uuid)})`);
  if (filter.groups !== null) out.push(`${s.group} IN (${list('group', filter.groups, nvarchar)})`);
  if (filter.from !== null) {
    params.push(datetime2('from', filter.from));
    out.push(`${s.createdAt} >= @from`);
  }
  if (filter.to !== null) {
    params.push(datetime2('to', filter.to));
    out.push(`${s.createdAt} < @to`);
  }
  if (filter.q !== null) {
    params.push(nvarchar('q', likePattern(filter.q)));
    out.push(`${s.lastError} LIKE @q`);
  }
  return out;
}

export function consoleStatements(tables: TableNames) {
  return {
    list(
      table: ConsoleTable,
      filter: ConsoleFilter,
      limit: number,
      after: ConsolePosition | null,
    ): Statement {
      const s = consoleShape(tables, table);
      const params: Param[] = [int('limit', limit)];
      const where = conditions(s, filter, params, false);
      if (after !== null) {
        params.push(varchar('afterTime', after.createdAt), uuid('afterId', after.id));
        const time = 'CONVERT(DATETIME2, @afterTime, 126)';
        where.push(
          `(${s.createdAt} < ${time} OR (${s.createdAt} = ${time} AND ${s.id} < @afterId))`,
        );
      }
      // The page is chosen inside with bare columns, then shaped outside: TOP over aliased
      // expressions is valid T-SQL that the statement-parse test's grammar cannot read.
      const columns = [s.id, s.state, s.group, s.key, s.attempt, s.createdAt, s.lastError];
      return statement(
        `SELECT CONVERT(NVARCHAR(36), p.${s.id}) AS id, p.${s.state} AS state, p.${s.group} AS [group],
  p.${s.key} AS [key], p.${s.attempt} AS attempt, p.${s.createdAt} AS createdAt,
  CONVERT(VARCHAR(33), p.${s.createdAt}, 126) AS position, LEFT(p.${s.lastError}, 500) AS lastError
FROM (
  SELECT TOP (@limit) ${[...new Set(columns)].join(', ')}
  FROM ${s.table}
  ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}\n  `}ORDER BY ${s.createdAt} DESC, ${s.id} DESC
) AS p
ORDER BY p.${s.createdAt} DESC, p.${s.id} DESC`,
        params,
      );
    },

    read(table: ConsoleTable, id: string): Statement {
      if (table === 'outbox') {
        const c = tables.outboxColumns;
        return statement(
          `SELECT CONVERT(NVARCHAR(36), ${c.id}) AS id, ${c.state} AS state, ${c.topic} AS [group],
  ${c.key} AS [key], ${c.attempt} AS attempt, ${c.createdAt} AS createdAt, ${c.lastError} AS lastError,
  ${c.payload} AS payload, ${c.headers} AS headers, ${c.maxAttempts} AS maxAttempts,
  ${c.scheduledAt} AS scheduledAt, ${c.updatedAt} AS updatedAt, ${c.claimedAt} AS claimedAt,
  ${c.leaseExpiresAt} AS leaseExpiresAt, ${c.aggregateType} AS [type], NULL AS aggregateId,
  NULL AS correlationId, NULL AS consumption
FROM ${tables.outbox} WHERE ${c.id} = @id`,
          [uuid('id', id)],
        );
      }
      const c = tables.inboxColumns;
      return statement(
        `SELECT CONVERT(NVARCHAR(36), ${c.id}) AS id, ${c.state} AS state, ${c.source} AS [group],
  ${c.idempotencyKey} AS [key], ${c.attempt} AS attempt, ${c.createdAt} AS createdAt,
  ${c.lastError} AS lastError, ${c.payload} AS payload, ${c.headers} AS headers,
  NULL AS maxAttempts, ${c.scheduledAt} AS scheduledAt, ${c.processedAt} AS updatedAt,
  ${c.claimedAt} AS claimedAt, ${c.leaseExpiresAt} AS leaseExpiresAt, ${c.eventType} AS [type],
  ${c.aggregateId} AS aggregateId, ${c.correlationId} AS correlationId, ${c.consumption} AS consumption
FROM ${tables.inbox} WHERE ${c.id} = @id`,
        [uuid('id', id)],
      );
    },

    countByState(table: ConsoleTable): Statement {
      const s = consoleShape(tables, table);
      return statement(
        `SELECT ${s.state} AS state, COUNT(*) AS [count] FROM ${s.table} GROUP BY ${s.state}`,
      );
    },

    /** A reason is `last_error` up to its first colon, at most 120 characters. */
    deadGroups(table: ConsoleTable, limit: number): Statement {
      const s = consoleShape(tables, table);
      return statement(
        `SELECT TOP (@limit) [group], [reason], [count]
FROM (
  SELECT d.[group] AS [group], d.reason AS reason, COUNT(*) AS [count]
  FROM (
    SELECT ${s.group} AS [group],
      COALESCE(NULLIF(LTRIM(RTRIM(LEFT(LEFT(${s.lastError}, CHARINDEX(':', ${s.lastError} + ':') - 1), 120))), ''), '(no error)') AS reason
    FROM ${s.table}
    WHERE ${s.state} = 'dead'
  ) AS d
  GROUP BY d.[group], d.reason
) AS g
ORDER BY [count] DESC, [group], [reason]`,
        [int('limit', limit)],
      );
    },

    /**
     * Spec §17.5's requeue of at most `limit` dead inbox rows, oldest first; rows another call
     * holds are skipped (READPAST), so two presses never move a row twice.
     */
    requeueInbox(filter: ConsoleFilter, limit: number, now: Date): Statement {
      const s = consoleShape(tables, 'inbox');
      const c = tables.inboxColumns;
      const params: Param[] = [int('limit', limit), datetime2('now', now)];
      const where = conditions(s, filter, params, true);
      return statement(
        `WITH picked AS (
  SELECT TOP (@limit) ${c.state}, ${c.attempt}, ${c.scheduledAt}, ${c.lastError}, ${c.claimedAt}, ${c.processedAt}, ${c.claimToken}, ${c.leaseExpiresAt}
  FROM ${s.table} WITH (ROWLOCK, UPDLOCK, READPAST)
  WHERE ${where.join(' AND ')}
  ORDER BY ${s.createdAt}, ${s.id}
)
UPDATE picked
SET ${c.state} = 'pending', ${c.attempt} = 0, ${c.scheduledAt} = @now, ${c.lastError} = NULL,
    ${c.claimedAt} = NULL, ${c.processedAt} = NULL, ${c.claimToken} = NULL, ${c.leaseExpiresAt} = NULL`,
        params,
      );
    },

    discardDead(table: ConsoleTable, filter: ConsoleFilter, limit: number): Statement {
      const s = consoleShape(tables, table);
      const params: Param[] = [int('limit', limit)];
      const where = conditions(s, filter, params, true);
      return statement(
        `DELETE FROM ${s.table}
WHERE ${s.id} IN (
  SELECT TOP (@limit) ${s.id} FROM ${s.table} WITH (ROWLOCK, UPDLOCK, READPAST)
  WHERE ${where.join(' AND ')}
  ORDER BY ${s.createdAt}, ${s.id}
) AND ${s.state} = 'dead'`,
        params,
      );
    },
  };
}
