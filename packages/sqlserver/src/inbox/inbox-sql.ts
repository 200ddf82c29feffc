import type { TableNames } from '../schema/table-names.js';

/**
 * The inbox statement texts of the storing side on SQL Server: the grouped insert, the reclaim
 * step and the oldest-pending gauge. Parameters are named per row (`@id0`, `@source0`, ...), so
 * the builders take the row count. Times follow spec §3.7: `created_at` is the app clock
 * (bound as UTC), `scheduled_at` at receipt and every lease the DB clock, SYSUTCDATETIME().
 */

/** The columns of one inserted row, in the order of the bound VALUES rows. */
export const INSERT_FIELDS = [
  'id',
  'source',
  'idempotencyKey',
  'aggregateId',
  'eventType',
  'payload',
  'headers',
  'correlationId',
  'consumption',
  'state',
  'createdAt',
  'publishTime',
  'delayMs',
  'lastError',
] as const;

/**
 * The grouped store of spec §7.4, one statement for `count` calls. SQL Server has no ON CONFLICT:
 * a row goes in when no row holds its (source, idempotency key), read WITH (UPDLOCK, HOLDLOCK) so
 * the key range stays locked until the insert (the reference's MERGE WITH (HOLDLOCK) takes the
 * same locks), and when it is the first of its key in the group (call order decides, as on
 * PostgreSQL). OUTPUT names the inserted ids; the others are duplicates.
 *
 * scheduled_at: SYSUTCDATETIME() is one value per statement on SQL Server (PostgreSQL's
 * clock_timestamp() is one per row), so each row adds 100 ns per place in the group, the
 * DATETIME2 tick: the group's rows keep call order in scheduled_at, as the relay and pull claims
 * order by it. A publish time earlier than that is taken instead (spec §7.4's MIN, NULL ignored);
 * equal publish times tie, as they do on PostgreSQL. The delay is in milliseconds (the reference
 * had whole seconds on SQL Server), split into seconds and the rest so any delay fits DATEADD's
 * int argument.
 */
export function insertStatement(tables: TableNames, count: number): string {
  const t = tables.inbox;
  const c = tables.inboxColumns;
  const rows = Array.from(
    { length: count },
    (_, i) => `(${INSERT_FIELDS.map((field) => `@${field}${i}`).join(', ')}, ${i})`,
  ).join(',\n    ');
  const receipt = `DATEADD(nanosecond, 100 * m.ord, SYSUTCDATETIME())`;
  return `INSERT INTO ${t} (${c.id}, ${c.source}, ${c.idempotencyKey}, ${c.aggregateId}, ${c.eventType}, ${c.payload}, ${c.state}, ${c.createdAt}, ${c.correlationId}, ${c.headers}, ${c.consumption}, ${c.scheduledAt}, ${c.lastError})
OUTPUT CAST(INSERTED.${c.id} AS VARCHAR(36)) AS id
SELECT m.id, m.source, m.idempotency_key, m.aggregate_id, m.event_type, m.payload, m.state, m.created_at, m.correlation_id, m.headers, m.consumption,
  DATEADD(millisecond, CAST(m.delay_ms % 1000 AS INT), DATEADD(second, CAST(m.delay_ms / 1000 AS INT), CASE WHEN m.publish_time < ${receipt} THEN m.publish_time ELSE ${receipt} END)),
  m.last_error
FROM (
  SELECT v.*, ROW_NUMBER() OVER (PARTITION BY v.source, v.idempotency_key ORDER BY v.ord) AS nth
  FROM (VALUES
    ${rows}
  ) AS v (id, source, idempotency_key, aggregate_id, event_type, payload, headers, correlation_id, consumption, state, created_at, publish_time, delay_ms, last_error, ord)
) AS m
WHERE m.nth = 1
  AND NOT EXISTS (SELECT 1 FROM ${t} AS i WITH (UPDLOCK, HOLDLOCK) WHERE i.${c.source} = m.source AND i.${c.idempotencyKey} = m.idempotency_key)`;
}

/** Spec §8.1 step 1, for every consumption mode: the statement does not filter on it. */
export function reclaimStatement(tables: TableNames): string {
  const c = tables.inboxColumns;
  return `UPDATE ${tables.inbox} SET ${c.state} = 'pending', ${c.claimedAt} = NULL WHERE ${c.state} = 'processing' AND (${c.leaseExpiresAt} <= SYSUTCDATETIME() OR ${c.leaseExpiresAt} IS NULL)`;
}

/**
 * Spec §8.1 step 2: DB now − MIN(created_at) over pending rows of both modes, in ms (the caller
 * clamps at 0: created_at is the app clock, which may run ahead of the database's).
 */
export function oldestPendingStatement(tables: TableNames): string {
  const c = tables.inboxColumns;
  return `SELECT DATEDIFF_BIG(millisecond, MIN(${c.createdAt}), SYSUTCDATETIME()) AS ageMs FROM ${tables.inbox} WHERE ${c.state} = 'pending'`;
}
