import {
  QueueBoxError,
  RETAINED_STATES,
  type Clock,
  type RetainedState,
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

  return {
    async deleteOlderThan<T extends RetentionTable>(
      table: T,
      state: RetainedState<T>,
      cutoff: Date,
      batchSize: number,
    ): Promise<number> {
      requireTerminal(table, state);
      requirePositive('batchSize', batchSize);
      return countPlanned(sql, olderThan[table], [state, cutoff, batchSize]);
    },

    async deleteBeyondCount(
      table: 'outbox',
      state: RetainedState<'outbox'>,
      keep: number,
      batchSize: number,
    ): Promise<number> {
      if (table !== 'outbox') {
        throw new QueueBoxError('internal', 'The inbox has no COUNT retention policy.');
      }
      requireTerminal(table, state);
      requirePositive('batchSize', batchSize);
      if (!Number.isInteger(keep) || keep < 0) {
        throw new QueueBoxError(
          'internal',
          `Retention must keep a whole number of rows >= 0, not ${keep}.`,
        );
      }
      return countPlanned(sql, beyondCount, [state, keep, batchSize]);
    },
  };
}

/** Checked at run time as well as by the types: a cast or a JS caller must not reach pending rows. */
function requireTerminal(table: RetentionTable, state: string): void {
  const allowed = RETAINED_STATES[table] as readonly string[];
  if (!allowed.includes(state)) {
    throw new QueueBoxError(
      'internal',
      `Retention refuses to delete ${table} rows in state '${state}'; it deletes only ${allowed.join(' and ')} rows.`,
    );
  }
}

function requirePositive(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) {
    throw new QueueBoxError('internal', `Retention needs a positive whole ${name}, not ${value}.`);
  }
}
