import type { RetentionTable } from '@queuebox/core';
import type { TableNames } from '../schema/table-names.js';
import { datetime2, int, nvarchar, statement, type Statement } from '../sql/statement.js';

/**
 * Retention deletes (spec §17.4) on SQL Server, one batch per statement. Unlike PostgreSQL's
 * select-then-delete, `DELETE TOP (n) ... WHERE` tests its predicate on each row as it deletes it,
 * under the row's lock, so a row that a replay moved back to pending in the meantime survives
 * without a second test. The state is a parameter, checked against the terminal set first; the
 * cutoff is the app clock (bound as UTC), which wrote `updated_at` and `created_at`.
 */
export function deleteOlderThan(
  tables: TableNames,
  table: RetentionTable,
  state: string,
  cutoff: Date,
  batchSize: number,
): Statement {
  // The inbox has no updated_at; its age is the receipt time, which also bounds deduplication.
  const t = table === 'outbox' ? tables.outbox : tables.inbox;
  const column = table === 'outbox' ? tables.outboxColumns.state : tables.inboxColumns.state;
  const age = table === 'outbox' ? tables.outboxColumns.updatedAt : tables.inboxColumns.createdAt;
  return statement(
    `DELETE TOP (@batchSize) FROM ${t} WHERE ${column} = @state AND ${age} < @cutoff`,
    [int('batchSize', batchSize), nvarchar('state', state), datetime2('cutoff', cutoff)],
  );
}

/**
 * The COUNT policy (outbox only): keeps the `keep` most recent rows in the state by updated_at
 * (id breaks ties) and deletes up to `batchSize` of the rest; the outer test of the state keeps a
 * row that left it since the ranking.
 */
export function deleteBeyondCount(
  tables: TableNames,
  state: string,
  keep: number,
  batchSize: number,
): Statement {
  const t = tables.outbox;
  const c = tables.outboxColumns;
  return statement(
    `DELETE FROM ${t} WHERE ${c.id} IN (SELECT TOP (@batchSize) id FROM (SELECT ${c.id} AS id, ROW_NUMBER() OVER (ORDER BY ${c.updatedAt} DESC, ${c.id} DESC) AS place FROM ${t} WHERE ${c.state} = @state) AS ranked WHERE place > @keep) AND ${c.state} = @state`,
    [int('batchSize', batchSize), nvarchar('state', state), int('keep', keep)],
  );
}
