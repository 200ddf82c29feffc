import {
  QueueBoxError,
  migrateLocked,
  migrationPlan,
  type HistoryRow,
  type MigrationReport,
  type MigrationSession,
  type RunMigrationsOptions,
} from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import type { Session } from '../connection/session.js';
import { migrations as bundled } from '../migrations/index.js';
import { statement } from '../sql/statement.js';
import {
  acquireMigrationLock,
  createHistoryTable,
  defaultSchema,
  existingQueueBoxTables,
  historyTableExists,
  insertHistoryRow,
  readHistory,
  releaseMigrationLock,
  schemaHasObjects,
} from './history-sql.js';

/**
 * Applies the bundled migrations with the guards of spec §17.3 (core's `migrateLocked`),
 * keeping Flyway's history table. The whole run holds a session app lock, so a second replica
 * waits, then finds everything applied. Each file runs as one batch in its own transaction with
 * its history row (DDL is transactional on SQL Server).
 */
export function runMigrations(
  pool: SqlServerPool,
  options: RunMigrationsOptions,
): Promise<MigrationReport> {
  const { set, baseline } = migrationPlan(options, bundled);
  return pool.withSession(async (session) => {
    const schema = (await session.run<{ name: string | null }>(defaultSchema)).rows[0]?.name;
    if (schema === null || schema === undefined) {
      throw new QueueBoxError(
        'migration_failed',
        'The login has no default schema, so QueueBox cannot place its tables. Set DEFAULT_SCHEMA for the database user.',
      );
    }
    const locked = await session.run<{ result: number }>(acquireMigrationLock);
    if ((locked.rows[0]?.result ?? -999) < 0) {
      throw new QueueBoxError('migration_failed', 'QueueBox could not take the migration lock.');
    }
    try {
      return await migrateLocked(migrationSession(session), set, { ...options, baseline });
    } finally {
      // A session lock ends with its session; a failed release must not hide the run's error.
      await session.run(releaseMigrationLock).catch(() => undefined);
    }
  });
}

function migrationSession(session: Session): MigrationSession {
  return {
    historyTableExists: () => count(session, historyTableExists),
    readHistory: () => history(session),
    hasQueueBoxTables: async () => (await session.run(existingQueueBoxTables)).rows.length > 0,
    schemaHasObjects: () => count(session, schemaHasObjects),
    createHistoryTable: async () => {
      await session.run(createHistoryTable);
    },
    insertHistoryRow: async (row) => {
      await session.run(insertHistoryRow(row));
    },
    runScript: async (text) => {
      await session.run(statement(text));
    },
    inTransaction: (work) => session.inTransaction(work),
  };
}

async function count(session: Session, query: typeof historyTableExists): Promise<boolean> {
  const rows = (await session.run<{ found: number }>(query)).rows;
  return (rows[0]?.found ?? 0) > 0;
}

async function history(session: Session): Promise<HistoryRow[]> {
  const rows = await session.run<{
    installed_rank: number;
    version: string | null;
    type: string;
    success: boolean;
  }>(readHistory);
  return rows.rows.map((row) => ({
    installedRank: row.installed_rank,
    version: row.version,
    type: row.type,
    success: row.success,
  }));
}
