import {
  QueueBoxError,
  type Logger,
  type MigrateOptions,
  type MigrationReport,
} from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import { redactReason } from '../connection/redact.js';
import type { Session } from '../connection/session.js';
import { migrations as bundled, type Migration } from '../migrations/index.js';
import { statement } from '../sql/statement.js';
import { flywayChecksum } from './checksum.js';
import {
  BASELINE_DESCRIPTION,
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
import { compareVersions, sameVersion } from './versions.js';

/** The texts of the PostgreSQL provider (spec §17.3), so operators read one message. */
export const TABLES_WITHOUT_HISTORY =
  'QueueBox tables exist without a migration history. Run `queuebox migrate --baseline <version>` with the last version you applied by hand.';
export const BASELINE_REFUSED =
  'The database already has a migration history, so QueueBox refuses to record a baseline. Run `queuebox migrate` without --baseline.';

export interface HistoryRow {
  readonly installedRank: number;
  readonly version: string | null;
  readonly type: string;
  readonly success: boolean;
}

export interface RunMigrationsOptions extends MigrateOptions {
  readonly logger: Logger;
  /** Apply nothing above this version (tests stage a database at an older version with it). */
  readonly target?: string;
  readonly migrations?: readonly Migration[];
  /** Credentials to mask in error texts. */
  readonly secrets?: readonly string[];
}

/**
 * Applies the bundled migrations with the guards of spec §17.3, keeping Flyway's history table.
 * The whole run holds a session app lock, so a second replica waits, then finds everything
 * applied. Each file runs as one batch in its own transaction with its history row, so a failed
 * file leaves neither its changes nor a row behind (DDL is transactional on SQL Server).
 */
export function runMigrations(
  pool: SqlServerPool,
  options: RunMigrationsOptions,
): Promise<MigrationReport> {
  const set = [...(options.migrations ?? bundled)].sort((a, b) =>
    compareVersions(a.version, b.version),
  );
  const baselineVersion =
    options.baseline === undefined ? undefined : bundledVersion(options.baseline, set);
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
      return await migrateLocked(session, set, { ...options, baseline: baselineVersion });
    } finally {
      // A session lock ends with its session; a failed release must not hide the run's error.
      await session.run(releaseMigrationLock).catch(() => undefined);
    }
  });
}

async function migrateLocked(
  session: Session,
  set: readonly Migration[],
  options: RunMigrationsOptions,
): Promise<MigrationReport> {
  const { logger } = options;
  const tableExists = await count(session, historyTableExists);
  const hasHistory = tableExists && (await history(session)).length > 0;
  let baseline: string | null = null;

  if (options.baseline !== undefined) {
    if (hasHistory) throw new QueueBoxError('migration_failed', BASELINE_REFUSED);
    baseline = options.baseline;
  } else if (!hasHistory) {
    if ((await session.run(existingQueueBoxTables)).rows.length > 0) {
      throw new QueueBoxError('migration_failed', TABLES_WITHOUT_HISTORY);
    }
    // Flyway's baselineOnMigrate at version 0: only a schema that already holds something gets
    // a baseline row; an empty one starts with V1 at rank 1.
    if (await count(session, schemaHasObjects)) baseline = '0';
  }

  if (!hasHistory) {
    const version = baseline;
    await session.inTransaction(async () => {
      if (!tableExists) await session.run(createHistoryTable);
      if (version !== null) {
        await session.run(
          insertHistoryRow({
            version,
            description: BASELINE_DESCRIPTION,
            type: 'BASELINE',
            script: BASELINE_DESCRIPTION,
            checksum: null,
            executionTimeMs: 0,
          }),
        );
      }
    });
    if (version !== null) logger.info(`Recorded the baseline at version ${version}.`);
  }

  const pending = pendingMigrations(set, await history(session), options.target);
  const applied: string[] = [];
  try {
    for (const migration of pending) {
      await apply(session, migration, options.secrets ?? []);
      applied.push(migration.version);
    }
  } finally {
    if (applied.length > 0)
      logger.info(`Applied ${applied.length} migration(s): ${applied.join(', ')}.`);
  }
  if (applied.length === 0)
    logger.info('The database schema is up to date; no migration to apply.');
  return { applied, baseline };
}

/**
 * What to run: every file above the highest baseline whose version has no successful row.
 * Versions are compared, never checksums: ours cannot equal the reference's (other file text).
 */
export function pendingMigrations(
  set: readonly Migration[],
  rows: readonly HistoryRow[],
  target?: string,
): Migration[] {
  const succeeded = rows.filter((row) => row.success && row.version !== null);
  const versions = succeeded.map((row) => row.version ?? '');
  const floor = succeeded
    .filter((row) => row.type === 'BASELINE')
    .map((row) => row.version ?? '')
    .sort(compareVersions)
    .at(-1);
  return set.filter(
    (migration) =>
      (floor === undefined || compareVersions(migration.version, floor) > 0) &&
      (target === undefined || compareVersions(migration.version, target) <= 0) &&
      !versions.some((version) => sameVersion(version, migration.version)),
  );
}

async function apply(session: Session, migration: Migration, secrets: readonly string[]) {
  try {
    await session.inTransaction(async () => {
      const started = performance.now();
      await session.run(statement(migration.sql));
      await session.run(
        insertHistoryRow({
          version: migration.version,
          description: migration.description,
          type: 'SQL',
          script: migration.script,
          checksum: flywayChecksum(migration.sql),
          executionTimeMs: Math.round(performance.now() - started),
        }),
      );
    });
  } catch (error: unknown) {
    throw new QueueBoxError(
      'migration_failed',
      `Migration ${migration.script} failed and was rolled back. Reason: ${redactReason(error, secrets)}`,
    );
  }
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

/** The bundled spelling of `version`, or the error that lists the bundled versions. */
function bundledVersion(version: string, set: readonly Migration[]): string {
  const found = set.find((migration) => sameVersion(migration.version, version.trim()));
  if (found) return found.version;
  throw new QueueBoxError(
    'migration_failed',
    `Version '${version}' is not a bundled migration, so QueueBox cannot record it as the baseline. The bundled versions are: ${set.map((m) => m.version).join(', ')}.`,
  );
}
