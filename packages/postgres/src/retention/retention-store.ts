import {
  createRetentionStore,
  type Clock,
  type RetentionStore,
  type RetentionTable,
} from '@queuebox/core';
import type postgres from 'postgres';
import { countPlanned } from '../connection/run-statement.js';
import type { TableNames } from '../schema/table-names.js';

/**
 * Retention deletes (spec §17.4) for both tables. Each call is one batch in one statement:
 * the inner SELECT picks up to `batchSize` ids, the DELETE removes those ids while re-checking
 * the state, so a row that a replay moved back to pending in the meantime survives. Statements
 * are built once per store and planned per call (see `runPlanned`); the state is a parameter,
 * checked against the terminal set first.
 */
export function deleteOlderThanStatement(tables: TableNames, table: RetentionTable): string {
  // The inbox has no updated_at; its age is the receipt time (created_at), which is also what
  // bounds the deduplication window.
  const t = table === 'outbox' ? tables.outbox : tables.inbox;
  const id = table === 'outbox' ? tables.outboxColumns.id : tables.inboxColumns.id;
  const state = table === 'outbox' ? tables.outboxColumns.state : tables.inboxColumns.state;
  const age = table === 'outbox' ? tables.outboxColumns.updatedAt : tables.inboxColumns.createdAt;
  return `DELETE FROM ${t}
WHERE ${id} = ANY(ARRAY(
    SELECT ${id} FROM ${t} WHERE ${state} = $1::text AND ${age} < $2::timestamptz LIMIT $3::integer))
  AND ${state} = $1::text
  AND ${age} < $2::timestamptz`;
}

export function deleteBeyondCountStatement(tables: TableNames): string {
  const t = tables.outbox;
  const c = tables.outboxColumns;
  return `DELETE FROM ${t}
WHERE ${c.id} = ANY(ARRAY(
    SELECT ${c.id} FROM ${t} WHERE ${c.state} = $1::text
    ORDER BY ${c.updatedAt} DESC, ${c.id} DESC
    OFFSET $2::integer LIMIT $3::integer))
  AND ${c.state} = $1::text`;
}

/** `_clock` keeps the factory shape of the other stores; cutoffs arrive already computed. */
export function createPostgresRetentionStore(
  sql: postgres.Sql,
  tables: TableNames,
  _clock: Clock,
): RetentionStore {
  const olderThan: Record<RetentionTable, string> = {
    outbox: deleteOlderThanStatement(tables, 'outbox'),
    inbox: deleteOlderThanStatement(tables, 'inbox'),
  };
  const beyondCount = deleteBeyondCountStatement(tables);
  return createRetentionStore({
    olderThan: (table, state, cutoff, batchSize) =>
      countPlanned(sql, olderThan[table], [state, cutoff, batchSize]),
    beyondCount: (state, keep, batchSize) =>
      countPlanned(sql, beyondCount, [state, keep, batchSize]),
  });
}
