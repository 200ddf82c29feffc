import { createRetentionStore, type RetentionStore, type RetentionTable } from '@queuebox/core';
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
  return createRetentionStore({
    olderThan: (table, state, cutoff, batchSize) =>
      deleted(table, deleteOlderThan(tables, table, state, cutoff, batchSize)),
    beyondCount: (state, keep, batchSize) =>
      deleted('outbox', deleteBeyondCount(tables, state, keep, batchSize)),
  });
}
