import type { InboxSchema } from '../schema.js';
import { claimOrder, quoteAll, type QuotedSchema } from './quoted-schema.js';
import { PARAMS, type InboxStatements, type StatementOptions } from './statement.js';

/**
 * The five pull statements of spec §9.1-9.2 on SQL Server, on validated names (bracketed here).
 * These are THE statements: examples/pull/sql/sqlserver/*.sql are these texts with the default
 * names (a test keeps them equal, as for PostgreSQL), so the worker sends exactly the SQL that
 * @queuebox/sqlserver's contract suite and statement-parse test check. Parameters are bound by
 * position as @p1..@pN (fromMssql binds every query that way); times are SYSUTCDATETIME().
 */
export function sqlserverStatements(
  schema: InboxSchema,
  options: StatementOptions = {},
): InboxStatements {
  const q = quoteAll(schema, (name) => `[${name}]`);
  const t = q.table;
  const fence = (id: number, token: number) => `WHERE ${q.id} = @p${id}
  AND ${q.consumption} = 'pull'
  AND ${q.state} = 'processing'
  AND ${q.claimToken} = @p${token}
  AND ${q.leaseExpiresAt} > SYSUTCDATETIME();
`;
  return {
    claim: { text: claim(q, options.strictAggregateOrder === true), params: PARAMS.claim },
    renew: {
      text: `UPDATE ${t}
SET ${q.leaseExpiresAt} = DATEADD(millisecond, @p1, SYSUTCDATETIME())
${fence(2, 3)}`,
      params: PARAMS.renew,
    },
    complete: {
      text: `UPDATE ${t}
SET ${q.state} = 'processed',
    ${q.processedAt} = SYSUTCDATETIME(),
    ${q.claimToken} = NULL,
    ${q.leaseExpiresAt} = NULL
${fence(1, 2)}`,
      params: PARAMS.complete,
    },
    retry: {
      text: `UPDATE ${t}
SET ${q.state} = 'pending',
    ${q.scheduledAt} = DATEADD(millisecond, @p1, SYSUTCDATETIME()),
    ${q.attempt} = ${q.attempt} + 1,
    ${q.lastError} = @p2,
    ${q.claimToken} = NULL,
    ${q.leaseExpiresAt} = NULL
${fence(3, 4)}`,
      params: PARAMS.retry,
    },
    dead: {
      text: `UPDATE ${t}
SET ${q.state} = 'dead',
    ${q.lastError} = @p1,
    ${q.claimToken} = NULL,
    ${q.leaseExpiresAt} = NULL
${fence(2, 3)}`,
      params: PARAMS.dead,
    },
  };
}

function claim(q: QuotedSchema, strict: boolean): string {
  // `strict` (see claimOrder): T-SQL has no row-value comparison, so "earlier" is spelled out;
  // uniqueidentifier comparison is SQL Server's own order, the one ORDER BY [id] uses, so the
  // rank and the check agree.
  const order = claimOrder(q, strict);
  const earlier = (a: string, indent: string) =>
    strict
      ? `
${indent}AND NOT EXISTS (
${indent}    -- Strict order: no earlier message of the aggregate is still unfinished.
${indent}    SELECT 1
${indent}    FROM ${q.table} AS p
${indent}    WHERE p.${q.source} = @src
${indent}      AND p.${q.consumption} = 'pull'
${indent}      AND p.${q.state} IN ('pending', 'processing')
${indent}      AND p.${q.aggregateId} = ${a}.${q.aggregateId}
${indent}      AND (p.${q.createdAt} < ${a}.${q.createdAt}
${indent}           OR (p.${q.createdAt} = ${a}.${q.createdAt} AND p.${q.id} < ${a}.${q.id})))`
      : '';
  const columns = `${q.id}, ${q.aggregateId}, ${q.scheduledAt}, ${q.createdAt}`;
  return `DECLARE @src NVARCHAR(255) = @p1;
DECLARE @qbBatch INT = @p2;
DECLARE @qbLeaseMs INT = @p3;
DECLARE @qbCandLimit INT = @p4;
DECLARE @lockResult INT;
DECLARE @claimed TABLE (id UNIQUEIDENTIFIER PRIMARY KEY);

BEGIN TRANSACTION;

-- One claim per source at a time, owned by this transaction: it ends at COMMIT or ROLLBACK.
EXEC @lockResult = sp_getapplock @Resource = @src, @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 10000;
IF @lockResult < 0
BEGIN
    ROLLBACK TRANSACTION;
    THROW 51000, 'inbox pull claim: sp_getapplock did not acquire the per-source claim lock', 1;
END;

WITH pending_candidates AS (
    -- (a) Due pending messages of the source, in schedule order, bounded.
    SELECT TOP (@qbCandLimit) ${columns}
    FROM ${q.table} WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE ${q.source} = @src
      AND ${q.consumption} = 'pull'
      AND ${q.state} = 'pending'
      AND ${q.scheduledAt} <= SYSUTCDATETIME()
    ORDER BY ${q.scheduledAt}, ${q.createdAt}, ${q.id}
), expired_candidates AS (
    -- (b) Messages whose claim lease ran out: taken over directly, with a new token.
    SELECT TOP (@qbCandLimit) ${columns}
    FROM ${q.table} WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE ${q.source} = @src
      AND ${q.consumption} = 'pull'
      AND ${q.state} = 'processing'
      AND ${q.leaseExpiresAt} <= SYSUTCDATETIME()
    ORDER BY ${q.scheduledAt}, ${q.createdAt}, ${q.id}
), ranked AS (
    -- The head of each aggregate among the candidates; a message without an aggregate is its
    -- own group.
    SELECT r.${q.id}, r.${q.aggregateId}, r.${q.scheduledAt}, r.${q.createdAt},
           ROW_NUMBER() OVER (
               PARTITION BY COALESCE(r.${q.aggregateId}, '#' + CAST(r.${q.id} AS VARCHAR(36)))
               ORDER BY ${order('r')}
           ) AS rank_in_aggregate
    FROM (SELECT * FROM pending_candidates UNION ALL SELECT * FROM expired_candidates) AS r
), eligible AS (
    -- Heads whose aggregate has no message of this source in flight under a live lease.
    SELECT TOP (@qbBatch) ${q.id}
    FROM ranked AS e
    WHERE e.rank_in_aggregate = 1
      AND (e.${q.aggregateId} IS NULL OR NOT EXISTS (
          SELECT 1
          FROM ${q.table} AS b
          WHERE b.${q.source} = @src
            AND b.${q.consumption} = 'pull'
            AND b.${q.state} = 'processing'
            AND b.${q.aggregateId} = e.${q.aggregateId}
            AND b.${q.leaseExpiresAt} > SYSUTCDATETIME()))${earlier('e', '      ')}
    ORDER BY e.${q.scheduledAt}, e.${q.createdAt}, e.${q.id}
)
-- The update runs on the base table and repeats the whole readiness predicate there, so a row
-- that changed after the candidates were read does not pass.
UPDATE i
SET ${q.state} = 'processing',
    ${q.claimToken} = NEWID(),
    ${q.claimedAt} = SYSUTCDATETIME(),
    ${q.leaseExpiresAt} = DATEADD(millisecond, @qbLeaseMs, SYSUTCDATETIME())
OUTPUT INSERTED.${q.id} INTO @claimed
FROM ${q.table} AS i WITH (UPDLOCK, ROWLOCK)
JOIN eligible AS l ON l.${q.id} = i.${q.id}
WHERE i.${q.source} = @src
  AND i.${q.consumption} = 'pull'
  AND ((i.${q.state} = 'pending' AND i.${q.scheduledAt} <= SYSUTCDATETIME())
       OR (i.${q.state} = 'processing' AND i.${q.leaseExpiresAt} <= SYSUTCDATETIME()))
  AND (i.${q.aggregateId} IS NULL OR NOT EXISTS (
      SELECT 1
      FROM ${q.table} AS b
      WHERE b.${q.source} = @src
        AND b.${q.consumption} = 'pull'
        AND b.${q.state} = 'processing'
        AND b.${q.aggregateId} = i.${q.aggregateId}
        AND b.${q.id} <> i.${q.id}
        AND b.${q.leaseExpiresAt} > SYSUTCDATETIME()))${earlier('i', '  ')};

-- OUTPUT order is undefined: the claimed rows are read back in claim order.
SELECT i.*
FROM ${q.table} AS i
WHERE i.${q.id} IN (SELECT c.[id] FROM @claimed AS c)
ORDER BY i.${q.scheduledAt}, i.${q.createdAt}, i.${q.id};

COMMIT TRANSACTION;
`;
}
