import type { OutboxStore } from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import { sqlServerError } from '../classify-error.js';
import type { OutboxStatements } from './outbox-calls.js';

/** Eight parameters a row: 250 rows per batch stays below the 2100-parameter cap. */
const ROWS_PER_INSERT = 250;

/** Inserts (the service's own, e.g. the admin API): every batch in one transaction. */
export function createInsert(pool: SqlServerPool, s: OutboxStatements): OutboxStore['insert'] {
  return async (messages) => {
    if (messages.length === 0) return;
    try {
      await pool.transaction(async (session) => {
        for (let i = 0; i < messages.length; i += ROWS_PER_INSERT)
          await session.run(s.insert(messages.slice(i, i + ROWS_PER_INSERT)));
      });
    } catch (error: unknown) {
      throw sqlServerError(error, 'insert outbox rows');
    }
  };
}
