import {
  QueueBoxError,
  RETAINED_STATES,
  type RetainedState,
  type RetentionStore,
  type RetentionTable,
} from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import { sqlServerError } from '../classify-error.js';
import type { TableNames } from '../schema/table-names.js';
import type { Statement } from '../sql/statement.js';
import { deleteBeyondCount, deleteOlderThan } from './retention-statements.js';

/** The RetentionStore port on SQL Server; cutoffs arrive already computed by the caller. */
export function createSqlServerRetentionStore(
  pool: SqlServerPool,
  tables: TableNames,
): RetentionStore {
  const deleted = async (table: RetentionTable, query: Statement): Promise<number> => {
    try {
      return (await pool.withSession((session) => session.run(query))).rowCount;
    } catch (error: unknown) {
      throw sqlServerError(error, `delete old ${table} rows`);
    }
  };
  return {
    async deleteOlderThan<T extends RetentionTable>(
      table: T,
      state: RetainedState<T>,
      cutoff: Date,
      batchSize: number,
    ): Promise<number> {
      requireTerminal(table, state);
      requirePositive('batchSize', batchSize);
      return deleted(table, deleteOlderThan(tables, table, state, cutoff, batchSize));
    },

    async deleteBeyondCount(
      table: 'outbox',
      state: RetainedState<'outbox'>,
      keep: number,
      batchSize: number,
    ): Promise<number> {
      if (table !== 'outbox')
        throw new QueueBoxError('internal', 'The inbox has no COUNT retention policy.');
      requireTerminal(table, state);
      requirePositive('batchSize', batchSize);
      if (!Number.isInteger(keep) || keep < 0 || keep > 2 ** 31 - 1)
        throw new QueueBoxError(
          'internal',
          `Retention must keep a whole number of rows >= 0, not ${keep}.`,
        );
      return deleted(table, deleteBeyondCount(tables, state, keep, batchSize));
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
  if (!Number.isInteger(value) || value <= 0 || value > 2 ** 31 - 1)
    throw new QueueBoxError('internal', `Retention needs a positive whole ${name}, not ${value}.`);
}
