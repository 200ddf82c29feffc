import type { TableNames } from '../schema/table-names.js';

/**
 * The outbox statement texts on SQL Server, built from validated, quoted names. Parameters are
 * named (`@now`, `@id0`); a statement over several rows numbers them per row, so the builders
 * take the row count. "App now" is `@now` (bound as UTC, spec §3.7), "DB now" SYSUTCDATETIME().
 */

/** The fence of spec §4.4 on `target`, against the row's own bound id and token in `source`. */
function fence(tables: TableNames, source: string): string {
  const c = tables.outboxColumns;
  return `target.${c.state} = 'processing' AND target.${c.claimToken} = ${source}.token AND target.${c.leaseExpiresAt} > SYSUTCDATETIME()`;
}

/** The name of the claim's app lock, the reference's (spec §4.2): per outbox table. */
export function outboxClaimLock(outboxTableName: string): string {
  return `queuebox_outbox_claim_${outboxTableName}`;
}

/**
 * Spec §4.2 on SQL Server: the exclusive app lock (10 s, owned by the claim transaction, so it
 * ends at commit or rollback), a negative result raised as Msg 51000 (transient, retried after a
 * wait), then the key-ordered candidates read `ROWLOCK, UPDLOCK, READPAST` and updated through the
 * CTE. The prior-row check reads without READPAST so it sees rows other sessions hold. OUTPUT
 * order is undefined: the caller re-reads the rows by id and sorts them.
 */
export function claimStatement(tables: TableNames, outboxTableName: string): string {
  const t = tables.outbox;
  const c = tables.outboxColumns;
  return `DECLARE @lockResult INT;
EXEC @lockResult = sp_getapplock @Resource = N'${outboxClaimLock(outboxTableName)}', @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 10000;
IF @lockResult < 0 THROW 51000, 'outbox claim: sp_getapplock did not acquire the claim lock', 1;
WITH claimable AS (
  SELECT TOP (@limit) ${c.id}, ${c.state}, ${c.updatedAt}, ${c.claimedAt}, ${c.claimToken}, ${c.leaseExpiresAt}
  FROM ${t} AS o WITH (ROWLOCK, UPDLOCK, READPAST)
  WHERE o.${c.state} = 'pending' AND o.${c.scheduledAt} <= @now
    AND (o.${c.key} IS NULL OR o.${c.key} = '' OR NOT EXISTS (
      SELECT 1 FROM ${t} AS p
      WHERE p.${c.key} = o.${c.key} AND p.${c.state} IN ('pending', 'processing') AND p.${c.sequence} < o.${c.sequence}))
  ORDER BY o.${c.scheduledAt}, o.${c.sequence}
)
UPDATE claimable
SET ${c.state} = 'processing', ${c.updatedAt} = @now, ${c.claimedAt} = @now, ${c.claimToken} = NEWID(),
    ${c.leaseExpiresAt} = DATEADD(millisecond, @leaseMs, SYSUTCDATETIME())
OUTPUT INSERTED.${c.id} AS id;`;
}

/** The claimed rows' columns, aliased to the model's field names. */
export function claimedColumns(tables: TableNames, alias: string): string {
  const c = tables.outboxColumns;
  const pairs: [string, string][] = [
    ['id', `CAST(${alias}.${c.id} AS VARCHAR(36))`],
    ['topic', `${alias}.${c.topic}`],
    ['[key]', `${alias}.${c.key}`],
    ['aggregateType', `${alias}.${c.aggregateType}`],
    ['payload', `${alias}.${c.payload}`],
    ['headers', `${alias}.${c.headers}`],
    ['state', `${alias}.${c.state}`],
    ['attempt', `${alias}.${c.attempt}`],
    ['maxAttempts', `${alias}.${c.maxAttempts}`],
    ['scheduledAt', `${alias}.${c.scheduledAt}`],
    ['createdAt', `${alias}.${c.createdAt}`],
    ['sequence', `CAST(${alias}.${c.sequence} AS VARCHAR(20))`],
    ['lastError', `${alias}.${c.lastError}`],
    ['claimToken', `CAST(${alias}.${c.claimToken} AS VARCHAR(36))`],
  ];
  return pairs.map(([name, expression]) => `${expression} AS ${name}`).join(', ');
}

/** The re-read of spec §4.2, in the claim's transaction, by the ids OUTPUT returned. */
export function rereadStatement(tables: TableNames, count: number): string {
  const ids = Array.from({ length: count }, (_, i) => `@id${i}`).join(', ');
  return `SELECT ${claimedColumns(tables, 'o')} FROM ${tables.outbox} AS o WHERE o.${tables.outboxColumns.id} IN (${ids})`;
}

/**
 * One fenced statement for a whole completion batch (spec §4.4): sent keeps the claim columns;
 * retry is pending again at app now + delay with attempt + 1 (the only place it increments);
 * dead clears claimed_at. A row whose fence fails is not matched and not returned.
 */
export function completeStatement(tables: TableNames, count: number): string {
  const c = tables.outboxColumns;
  const rows = Array.from(
    { length: count },
    (_, i) => `(@id${i}, @token${i}, @kind${i}, @delay${i}, @error${i})`,
  ).join(', ');
  return `UPDATE target
SET ${c.state} = CASE done.kind WHEN 'sent' THEN 'sent' WHEN 'retry' THEN 'pending' ELSE 'dead' END,
    ${c.updatedAt} = @now,
    ${c.scheduledAt} = CASE WHEN done.kind = 'retry' THEN DATEADD(millisecond, done.delay_ms, @now) ELSE target.${c.scheduledAt} END,
    ${c.attempt} = CASE WHEN done.kind = 'retry' THEN target.${c.attempt} + 1 ELSE target.${c.attempt} END,
    ${c.claimedAt} = CASE WHEN done.kind = 'sent' THEN target.${c.claimedAt} ELSE NULL END,
    ${c.lastError} = CASE WHEN done.kind = 'sent' THEN target.${c.lastError} ELSE COALESCE(done.error, target.${c.lastError}) END
OUTPUT CAST(INSERTED.${c.id} AS VARCHAR(36)) AS id
FROM ${tables.outbox} AS target
JOIN (VALUES ${rows}) AS done (id, token, kind, delay_ms, error) ON target.${c.id} = done.id
WHERE ${fence(tables, 'done')};`;
}

function ownedRows(count: number): string {
  return Array.from({ length: count }, (_, i) => `(@id${i}, @token${i})`).join(', ');
}

export function renewStatement(tables: TableNames, count: number): string {
  const c = tables.outboxColumns;
  return `UPDATE target
SET ${c.leaseExpiresAt} = DATEADD(millisecond, @leaseMs, SYSUTCDATETIME())
OUTPUT CAST(INSERTED.${c.id} AS VARCHAR(36)) AS id
FROM ${tables.outbox} AS target
JOIN (VALUES ${ownedRows(count)}) AS owned (id, token) ON target.${c.id} = owned.id
WHERE ${fence(tables, 'owned')};`;
}

/** Shutdown hand-back: like the reclaim step, but fenced and at once. */
export function releaseStatement(tables: TableNames, count: number): string {
  const c = tables.outboxColumns;
  return `UPDATE target
SET ${c.state} = 'pending', ${c.claimedAt} = NULL, ${c.updatedAt} = @now
OUTPUT CAST(INSERTED.${c.id} AS VARCHAR(36)) AS id
FROM ${tables.outbox} AS target
JOIN (VALUES ${ownedRows(count)}) AS owned (id, token) ON target.${c.id} = owned.id
WHERE ${fence(tables, 'owned')};`;
}

/** Spec §4.1 step 1: attempt is not changed. */
export function reclaimStatement(tables: TableNames): string {
  const c = tables.outboxColumns;
  return `UPDATE ${tables.outbox} SET ${c.state} = 'pending', ${c.claimedAt} = NULL, ${c.updatedAt} = @now WHERE ${c.state} = 'processing' AND (${c.leaseExpiresAt} <= SYSUTCDATETIME() OR ${c.leaseExpiresAt} IS NULL)`;
}

/** Spec §4.1 step 4, SQL Server: the age against app now bound as a parameter, in ms. */
export function gaugesStatement(tables: TableNames): string {
  const c = tables.outboxColumns;
  return `SELECT COUNT(*) AS pending, DATEDIFF_BIG(millisecond, MIN(${c.createdAt}), @now) AS ageMs FROM ${tables.outbox} WHERE ${c.state} = 'pending'`;
}

/** Spec §3.7: each deadline against its own clock (schedule: app now; lease: DB now). */
export function nextWakeStatement(tables: TableNames): string {
  const t = tables.outbox;
  const c = tables.outboxColumns;
  return `SELECT (SELECT DATEDIFF_BIG(millisecond, @now, MIN(${c.scheduledAt})) FROM ${t} WHERE ${c.state} = 'pending') AS scheduleMs, (SELECT DATEDIFF_BIG(millisecond, SYSUTCDATETIME(), MIN(${c.leaseExpiresAt})) FROM ${t} WHERE ${c.state} = 'processing') AS leaseMs`;
}

/**
 * The insert: one single-row INSERT per message, in array order, in one batch and one
 * transaction. Separate statements because SQL Server promises the order of default values only
 * statement by statement (a sequence default in an INSERT ... SELECT ... ORDER BY has no
 * documented order), and `sequence` must follow the array. Optional fields fall back to the
 * schema's defaults; `sequence`, state, attempt, created_at and updated_at are left to theirs.
 */
export function insertStatement(tables: TableNames, count: number): string {
  const c = tables.outboxColumns;
  const columns = [
    c.id,
    c.topic,
    c.key,
    c.aggregateType,
    c.payload,
    c.headers,
    c.maxAttempts,
    c.scheduledAt,
  ].join(', ');
  return Array.from(
    { length: count },
    (_, i) =>
      `INSERT INTO ${tables.outbox} (${columns}) VALUES (COALESCE(@id${i}, NEWID()), @topic${i}, @key${i}, @aggregateType${i}, @payload${i}, COALESCE(@headers${i}, '{}'), COALESCE(@maxAttempts${i}, 5), COALESCE(@scheduledAt${i}, GETUTCDATE()));`,
  ).join('\n');
}

export type ReplayPart = 'ids' | 'topics' | 'createdAfter' | 'createdBefore';

/** Spec §11.6: only sent and dead rows move; each list is one parameter per element. */
export function replayStatement(
  tables: TableNames,
  counts: {
    readonly ids?: number;
    readonly topics?: number;
    readonly createdAfter?: boolean;
    readonly createdBefore?: boolean;
  },
): string {
  const c = tables.outboxColumns;
  const list = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => `@${prefix}${i}`).join(', ');
  const conditions = [`${c.state} IN ('sent', 'dead')`];
  if (counts.ids !== undefined) conditions.push(`${c.id} IN (${list('id', counts.ids)})`);
  if (counts.topics !== undefined)
    conditions.push(`${c.topic} IN (${list('topic', counts.topics)})`);
  if (counts.createdAfter) conditions.push(`${c.createdAt} > @createdAfter`);
  if (counts.createdBefore) conditions.push(`${c.createdAt} < @createdBefore`);
  return `UPDATE ${tables.outbox}
SET ${c.state} = 'pending', ${c.attempt} = 0, ${c.lastError} = NULL, ${c.scheduledAt} = @now, ${c.updatedAt} = @now,
    ${c.claimedAt} = NULL, ${c.claimToken} = NULL, ${c.leaseExpiresAt} = NULL
WHERE ${conditions.join(' AND ')}`;
}

export function distinctTopicsStatement(tables: TableNames): string {
  const topic = tables.outboxColumns.topic;
  return `SELECT DISTINCT ${topic} AS topic FROM ${tables.outbox} ORDER BY ${topic}`;
}
