import { waitForDatabase as waitForAnswer, type WaitForDatabaseOptions } from '@queuebox/core';
import type postgres from 'postgres';

export type { WaitForDatabaseOptions } from '@queuebox/core';

/** Core's start-up wait with PostgreSQL's `SELECT 1` on a pool connection. */
export function waitForDatabase(
  sql: postgres.Sql,
  options: WaitForDatabaseOptions,
): Promise<number> {
  return waitForAnswer(() => sql`SELECT 1`.execute(), options);
}
