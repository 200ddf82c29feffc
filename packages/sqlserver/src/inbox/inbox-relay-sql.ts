import type { TableNames } from '../schema/table-names.js';

/**
 * The relay side of the inbox store on SQL Server (spec §8.2, §8.3): the claim lock and the
 * busy-aggregate read, the claim, the re-read by id, and the fenced writes. Every claim, fence
 * and lease rule is here, in SQL, so it holds across replicas, the reference's included.
 */

/** The name of the relay claim's app lock, the reference's (spec §8.2): per inbox table. */
export function inboxClaimLock(inboxTableName: string): string {
  return `queuebox_inbox_claim_${inboxTableName}`;
}

/**
 * Up to this many busy aggregates are bound as parameters (spec §8.2); beyond it the claim reads
 * them in a subquery instead, so a request stays below SQL Server's 2100-parameter cap. Under the
 * claim lock both forms exclude the same aggregates.
 */
export const MAX_BOUND_BUSY = 1000;

/** The fence of spec §8.3 on `row`, against the bound id and token in `ids`. */
function fence(tables: TableNames, row: string, ids: string): string {
  const c = tables.inboxColumns;
  return `${row}.${c.id} = ${ids}.id AND ${row}.${c.state} = 'processing' AND ${row}.${c.claimToken} = ${ids}.token AND ${row}.${c.leaseExpiresAt} > SYSUTCDATETIME()`;
}

/**
 * First statement of the claim transaction: the exclusive app lock (10 s, owned by the
 * transaction, so it ends at commit or rollback; a negative result raised as Msg 51000, transient
 * with backoff), then the set of busy aggregates: any processing row blocks its aggregate,
 * whatever its source, consumption or lease (spec §8.2).
 */
export function lockAndBusyStatement(tables: TableNames, inboxTableName: string): string {
  const c = tables.inboxColumns;
  return `DECLARE @lockResult INT;
EXEC @lockResult = sp_getapplock @Resource = N'${inboxClaimLock(inboxTableName)}', @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 10000;
IF @lockResult < 0 THROW 51000, 'inbox relay claim: sp_getapplock did not acquire the claim lock', 1;
SELECT DISTINCT ${c.aggregateId} AS aggregateId FROM ${tables.inbox} WHERE ${c.aggregateId} IS NOT NULL AND ${c.state} = 'processing';`;
}

/** `(scheduled_at, created_at, id)` of `a` before that of `b`; ids compared as text (see claim). */
function earlier(tables: TableNames, a: string, b: string): string {
  const c = tables.inboxColumns;
  const id = (row: string) => `CAST(${row}.${c.id} AS CHAR(36))`;
  return `(${a}.${c.scheduledAt} < ${b}.${c.scheduledAt} OR (${a}.${c.scheduledAt} = ${b}.${c.scheduledAt} AND (${a}.${c.createdAt} < ${b}.${c.createdAt} OR (${a}.${c.createdAt} = ${b}.${c.createdAt} AND ${id(a)} < ${id(b)}))))`;
}

/**
 * The claim, after the lock: due push rows that are the head of their aggregate among the due
 * push rows (no earlier one of it is due), of no busy aggregate, in (scheduled_at, created_at, id)
 * order, TOP (@limit), read ROWLOCK, UPDLOCK, READPAST and updated through the CTE. The head test
 * reads without READPAST, so a head another transaction holds is skipped and not replaced by the
 * next row of its aggregate. So at most one row per aggregate is claimed, and the in-process
 * aggregate rule of spec §8.2 never has a row to release. Ids tie-break as text (uniqueidentifier
 * order compares the last bytes first). `busy` is the number of bound aggregates, or 'subquery'.
 */
export function claimStatement(tables: TableNames, busy: number | 'subquery'): string {
  const t = tables.inbox;
  const c = tables.inboxColumns;
  const due = (row: string) =>
    `${row}.${c.state} = 'pending' AND ${row}.${c.consumption} = 'push' AND ${row}.${c.scheduledAt} <= SYSUTCDATETIME()`;
  const notBusy =
    busy === 'subquery'
      ? ` AND o.${c.aggregateId} NOT IN (SELECT b.${c.aggregateId} FROM ${t} AS b WHERE b.${c.aggregateId} IS NOT NULL AND b.${c.state} = 'processing')`
      : busy > 0
        ? ` AND o.${c.aggregateId} NOT IN (${Array.from({ length: busy }, (_, i) => `@busy${i}`).join(', ')})`
        : '';
  return `WITH claimable AS (
  SELECT TOP (@limit) ${c.id}, ${c.state}, ${c.claimedAt}, ${c.claimToken}, ${c.leaseExpiresAt}
  FROM ${t} AS o WITH (ROWLOCK, UPDLOCK, READPAST)
  WHERE ${due('o')}
    AND (o.${c.aggregateId} IS NULL OR (o.${c.aggregateId} IS NOT NULL${notBusy} AND NOT EXISTS (
      SELECT 1 FROM ${t} AS p
      WHERE p.${c.aggregateId} = o.${c.aggregateId} AND ${due('p')} AND ${earlier(tables, 'p', 'o')})))
  ORDER BY o.${c.scheduledAt}, o.${c.createdAt}, CAST(o.${c.id} AS CHAR(36))
)
UPDATE claimable
SET ${c.state} = 'processing', ${c.claimedAt} = @now, ${c.claimToken} = NEWID(),
    ${c.leaseExpiresAt} = DATEADD(millisecond, @leaseMs, SYSUTCDATETIME())
OUTPUT INSERTED.${c.id} AS id;`;
}

/**
 * The claimed rows by id, in the claim's transaction, in claim order (OUTPUT order is undefined;
 * sorting here keeps DATETIME2's 100 ns, which a JavaScript Date would round to the millisecond).
 */
export function rereadStatement(tables: TableNames, count: number): string {
  const c = tables.inboxColumns;
  const ids = Array.from({ length: count }, (_, i) => `@id${i}`).join(', ');
  const columns: [string, string][] = [
    ['id', `CAST(r.${c.id} AS VARCHAR(36))`],
    ['source', `r.${c.source}`],
    ['idempotencyKey', `r.${c.idempotencyKey}`],
    ['aggregateId', `r.${c.aggregateId}`],
    ['eventType', `r.${c.eventType}`],
    ['headers', `r.${c.headers}`],
    ['correlationId', `r.${c.correlationId}`],
    ['consumption', `r.${c.consumption}`],
    ['state', `r.${c.state}`],
    ['createdAt', `r.${c.createdAt}`],
    ['scheduledAt', `r.${c.scheduledAt}`],
    ['attempt', `r.${c.attempt}`],
    ['claimToken', `CAST(r.${c.claimToken} AS VARCHAR(36))`],
  ];
  return `SELECT ${columns.map(([alias, column]) => `${column} AS ${alias}`).join(', ')} FROM ${tables.inbox} AS r WHERE r.${c.id} IN (${ids}) ORDER BY r.${c.scheduledAt}, r.${c.createdAt}, CAST(r.${c.id} AS CHAR(36))`;
}

/**
 * The forward of spec §8.3 for `count` rows, in the order given (so the outbox sequence follows
 * it: one single-row INSERT each, as the outbox insert does), inside one transaction. Per row the
 * outbox insert comes first, reading the inbox row under the fence WITH (UPDLOCK) and copying its
 * payload inside the database; then the fenced mark, which returns the id when it held. Both test
 * the fence against one DB now (`@forwardNow`, read once) on a row nobody else can change in
 * between, so either both write or neither: a lost claim writes no outbox row. A failing insert
 * rolls the whole batch back (XACT_ABORT ON), marks included.
 */
export function forwardStatement(tables: TableNames, count: number): string {
  const c = tables.inboxColumns;
  const o = tables.outboxColumns;
  const columns = [
    o.id,
    o.topic,
    o.key,
    o.payload,
    o.headers,
    o.state,
    o.attempt,
    o.maxAttempts,
    o.scheduledAt,
    o.createdAt,
    o.updatedAt,
  ].join(', ');
  const fenced = (row: string, i: number) =>
    `${row}${c.id} = @id${i} AND ${row}${c.state} = 'processing' AND ${row}${c.claimToken} = @token${i} AND ${row}${c.leaseExpiresAt} > @forwardNow`;
  const rows = Array.from(
    { length: count },
    (_, i) =>
      `INSERT INTO ${tables.outbox} (${columns}) SELECT @outboxId${i}, @topic${i}, @key${i}, i.${c.payload}, @headers${i}, 'pending', 0, @maxAttempts${i}, @now, @now, @now FROM ${tables.inbox} AS i WITH (UPDLOCK, ROWLOCK) WHERE ${fenced('i.', i)};
UPDATE ${tables.inbox} SET ${c.state} = 'processed', ${c.processedAt} = @now OUTPUT CAST(INSERTED.${c.id} AS VARCHAR(36)) AS id WHERE ${fenced('', i)};`,
  );
  return `DECLARE @forwardNow DATETIME2 = SYSUTCDATETIME();\n${rows.join('\n')}`;
}

function ownedRows(count: number): string {
  return Array.from({ length: count }, (_, i) => `(@id${i}, @token${i})`).join(', ');
}

/** Fenced `dead` marks (a topic rendered empty); claimed_at cleared. */
export function markDeadStatement(tables: TableNames, count: number): string {
  const c = tables.inboxColumns;
  return `UPDATE target
SET ${c.state} = 'dead', ${c.claimedAt} = NULL
OUTPUT CAST(INSERTED.${c.id} AS VARCHAR(36)) AS id
FROM ${tables.inbox} AS target
JOIN (VALUES ${ownedRows(count)}) AS owned (id, token) ON target.${c.id} = owned.id
WHERE ${fence(tables, 'target', 'owned')};`;
}

export function renewStatement(tables: TableNames, count: number): string {
  const c = tables.inboxColumns;
  return `UPDATE target
SET ${c.leaseExpiresAt} = DATEADD(millisecond, @leaseMs, SYSUTCDATETIME())
OUTPUT CAST(INSERTED.${c.id} AS VARCHAR(36)) AS id
FROM ${tables.inbox} AS target
JOIN (VALUES ${ownedRows(count)}) AS owned (id, token) ON target.${c.id} = owned.id
WHERE ${fence(tables, 'target', 'owned')};`;
}
