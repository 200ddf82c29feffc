import {
  QueueBoxError,
  migrateLocked,
  migrationPlan,
  type MigrationReport,
  type MigrationSession,
  type RunMigrationsOptions,
} from '@queuebox/core';
import type postgres from 'postgres';
import { migrations as bundled } from '../migrations/index.js';
import { flywayLockKey } from './advisory-lock.js';
import {
  HISTORY_TABLE,
  createHistoryTable,
  historyTableExists,
  insertHistoryRow,
  readHistory,
} from './history.js';
import { existingQueueBoxTables, schemaHasObjects } from './schema-objects.js';

/**
 * Applies the bundled migrations with the guards of spec §17.3 (core's `migrateLocked`),
 * keeping Flyway's history table (spec §3.5). Several replicas may start at once: the whole run
 * holds a session advisory lock (Flyway's key), so the second migrator waits, then finds
 * everything applied.
 */
export async function runMigrations(
  sql: postgres.Sql,
  options: RunMigrationsOptions,
): Promise<MigrationReport> {
  const { set, baseline } = migrationPlan(options, bundled);

  const connection = await sql.reserve();
  try {
    const lockKey = flywayLockKey(await defaultSchema(connection), HISTORY_TABLE).toString();
    const [free] = await connection<
      { locked: boolean }[]
    >`SELECT pg_try_advisory_lock(${lockKey}::bigint) AS locked`;
    if (free?.locked !== true) {
      options.logger.info(
        'Another process is migrating this database. QueueBox waits until it has finished.',
      );
      await connection`SELECT pg_advisory_lock(${lockKey}::bigint)`;
    }
    try {
      return await migrateLocked(migrationSession(connection), set, { ...options, baseline });
    } finally {
      // A session lock ends with its session, so a failed unlock (a dead connection) needs no
      // handling; it must not hide the error that ended the run.
      await connection`SELECT pg_advisory_unlock(${lockKey}::bigint)`.catch(() => undefined);
    }
  } finally {
    connection.release();
  }
}

function migrationSession(connection: postgres.ReservedSql): MigrationSession {
  return {
    historyTableExists: () => historyTableExists(connection),
    readHistory: () => readHistory(connection),
    hasQueueBoxTables: async () => (await existingQueueBoxTables(connection)).length > 0,
    schemaHasObjects: () => schemaHasObjects(connection),
    createHistoryTable: () => createHistoryTable(connection),
    insertHistoryRow: (row) => insertHistoryRow(connection, row),
    runScript: async (text) => {
      await connection.unsafe(text);
    },
    inTransaction: (work) => inTransaction(connection, work),
  };
}

async function inTransaction(
  connection: postgres.ReservedSql,
  work: () => Promise<void>,
): Promise<void> {
  // A reserved connection has no begin(); the lock must stay on this one session, so the
  // transaction is driven by hand.
  await connection.unsafe('BEGIN');
  try {
    await work();
  } catch (error: unknown) {
    // The original failure is the one to report; a failed rollback (a dead connection) ends
    // the transaction anyway.
    await connection.unsafe('ROLLBACK').catch(() => undefined);
    throw error;
  }
  await connection.unsafe('COMMIT');
}

async function defaultSchema(connection: postgres.ReservedSql): Promise<string> {
  const rows = await connection<{ schema: string | null }[]>`SELECT current_schema() AS schema`;
  const schema = rows[0]?.schema ?? null;
  if (schema === null) {
    throw new QueueBoxError(
      'migration_failed',
      'The connection has no default schema (search_path names no existing schema), so QueueBox cannot place its tables. Set search_path for the database user.',
    );
  }
  return schema;
}
