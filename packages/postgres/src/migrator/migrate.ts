import {
  QueueBoxError,
  type Logger,
  type MigrateOptions,
  type MigrationReport,
} from '@queuebox/core';
import type postgres from 'postgres';
import { migrations as bundled, type Migration } from '../migrations/index.js';
import { redactReason } from '../connection/redact.js';
import { flywayLockKey } from './advisory-lock.js';
import { flywayChecksum } from './checksum.js';
import {
  BASELINE_DESCRIPTION,
  HISTORY_TABLE,
  createHistoryTable,
  historyTableExists,
  insertHistoryRow,
  readHistory,
  type HistoryRow,
} from './history.js';
import { existingQueueBoxTables, schemaHasObjects } from './schema-objects.js';
import { compareVersions, sameVersion } from './versions.js';

export const TABLES_WITHOUT_HISTORY =
  'QueueBox tables exist without a migration history. Run `queuebox migrate --baseline <version>` with the last version you applied by hand.';
export const BASELINE_REFUSED =
  'The database already has a migration history, so QueueBox refuses to record a baseline. Run `queuebox migrate` without --baseline.';

export interface RunMigrationsOptions extends MigrateOptions {
  readonly logger: Logger;
  /** Apply nothing above this version (tests stage a database at an older version with it). */
  readonly target?: string;
  /** The migration set; the bundled one unless a test passes another. */
  readonly migrations?: readonly Migration[];
  /** Credentials to mask in error texts. */
  readonly secrets?: readonly string[];
}

/**
 * Applies the bundled migrations with the guards of spec §17.3, keeping Flyway's history table
 * (spec §3.5). Several replicas may start at once: the whole run holds a session advisory lock
 * (Flyway's key), so the second migrator waits, then finds everything applied. Each migration
 * runs in its own transaction together with its history row, so a failed file leaves neither
 * its changes nor a row behind.
 */
export async function runMigrations(
  sql: postgres.Sql,
  options: RunMigrationsOptions,
): Promise<MigrationReport> {
  const set = [...(options.migrations ?? bundled)].sort((a, b) =>
    compareVersions(a.version, b.version),
  );
  const baselineVersion =
    options.baseline === undefined ? undefined : bundledVersion(options.baseline, set);

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
      return await migrateLocked(connection, set, { ...options, baseline: baselineVersion });
    } finally {
      // A session lock ends with its session, so a failed unlock (a dead connection) needs no
      // handling; it must not hide the error that ended the run.
      await connection`SELECT pg_advisory_unlock(${lockKey}::bigint)`.catch(() => undefined);
    }
  } finally {
    connection.release();
  }
}

async function migrateLocked(
  connection: postgres.ReservedSql,
  set: readonly Migration[],
  options: RunMigrationsOptions,
): Promise<MigrationReport> {
  const { logger } = options;
  const tableExists = await historyTableExists(connection);
  const hasHistory = tableExists && (await readHistory(connection)).length > 0;
  let baseline: string | null = null;

  if (options.baseline !== undefined) {
    if (hasHistory) throw new QueueBoxError('migration_failed', BASELINE_REFUSED);
    baseline = options.baseline;
  } else if (!hasHistory) {
    if ((await existingQueueBoxTables(connection)).length > 0) {
      throw new QueueBoxError('migration_failed', TABLES_WITHOUT_HISTORY);
    }
    // Flyway's baselineOnMigrate at version 0: only a schema that already holds something (the
    // application's own tables) gets a baseline row; an empty one starts with V1 at rank 1.
    if (await schemaHasObjects(connection)) baseline = '0';
  }

  if (!hasHistory) {
    const version = baseline;
    await inTransaction(connection, async () => {
      if (!tableExists) await createHistoryTable(connection);
      if (version !== null) {
        await insertHistoryRow(connection, {
          version,
          description: BASELINE_DESCRIPTION,
          type: 'BASELINE',
          script: BASELINE_DESCRIPTION,
          checksum: null,
          executionTimeMs: 0,
        });
      }
    });
    if (version !== null) logger.info(`Recorded the baseline at version ${version}.`);
  }

  const pending = pendingMigrations(set, await readHistory(connection), options.target);
  const applied: string[] = [];
  try {
    for (const migration of pending) {
      await apply(connection, migration, options.secrets ?? []);
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
  history: readonly HistoryRow[],
  target?: string,
): Migration[] {
  const succeeded = history
    .filter((row) => row.success)
    .flatMap((row) => (row.version === null ? [] : [row]));
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

async function apply(
  connection: postgres.ReservedSql,
  migration: Migration,
  secrets: readonly string[],
): Promise<void> {
  try {
    await inTransaction(connection, async () => {
      const started = performance.now();
      await connection.unsafe(migration.sql);
      await insertHistoryRow(connection, {
        version: migration.version,
        description: migration.description,
        type: 'SQL',
        script: migration.script,
        checksum: flywayChecksum(migration.sql),
        executionTimeMs: Math.round(performance.now() - started),
      });
    });
  } catch (error: unknown) {
    throw new QueueBoxError(
      'migration_failed',
      `Migration ${migration.script} failed and was rolled back. Reason: ${redactReason(error, secrets)}`,
    );
  }
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

/** The bundled spelling of `version`, or the error that lists the bundled versions. */
function bundledVersion(version: string, set: readonly Migration[]): string {
  const found = set.find((migration) => sameVersion(migration.version, version.trim()));
  if (found) return found.version;
  throw new QueueBoxError(
    'migration_failed',
    `Version '${version}' is not a bundled migration, so QueueBox cannot record it as the baseline. The bundled versions are: ${set.map((m) => m.version).join(', ')}.`,
  );
}
