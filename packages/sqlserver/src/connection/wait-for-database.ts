import { waitForDatabase as waitForAnswer, type WaitForDatabaseOptions } from '@queuebox/core';
import type { SqlServerPool } from './pool.js';

export type { WaitForDatabaseOptions } from '@queuebox/core';

/** Core's start-up wait with SQL Server's `SELECT 1` on a pool connection. */
export function waitForDatabase(
  pool: SqlServerPool,
  options: WaitForDatabaseOptions,
): Promise<number> {
  return waitForAnswer(
    () => pool.withSession((session) => session.run({ text: 'SELECT 1', params: [] })),
    options,
  );
}
