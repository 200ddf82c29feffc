import { QueueBoxError } from '../errors.js';
import type { Logger } from '../ports/logger.js';
import type { MigrateOptions, MigrationReport } from '../ports/database.js';
import { flywayChecksum } from './flyway-checksum.js';
import { compareVersions, sameVersion } from './flyway-versions.js';
import { BASELINE_DESCRIPTION, type HistoryRow, type NewHistoryRow } from './migration-history.js';
import type { Migration } from './migration.js';
import { redactReason } from './redact.js';

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
 * What a dialect does for the migrator, on the one session that holds its migration lock. The
 * rules (when to baseline, what to refuse, what is pending, one transaction per file with its
 * history row) are the same on every database and live in `migrateLocked`.
 */
export interface MigrationSession {
  historyTableExists(): Promise<boolean>;
  readHistory(): Promise<HistoryRow[]>;
  /** Whether a default QueueBox table (outbox, inbox) already exists in the default schema. */
  hasQueueBoxTables(): Promise<boolean>;
  /** Whether the default schema holds anything besides the history table (Flyway's non-empty). */
  schemaHasObjects(): Promise<boolean>;
  createHistoryTable(): Promise<void>;
  insertHistoryRow(row: NewHistoryRow): Promise<void>;
  /** Runs one migration file's text. */
  runScript(sql: string): Promise<void>;
  /** Runs `work` in one transaction on this session; rolls back and rethrows when it fails. */
  inTransaction(work: () => Promise<void>): Promise<void>;
}

/** The set in version order, and the bundled spelling of the requested baseline. */
export function migrationPlan(
  options: RunMigrationsOptions,
  bundled: readonly Migration[],
): { readonly set: readonly Migration[]; readonly baseline: string | undefined } {
  const set = [...(options.migrations ?? bundled)].sort((a, b) =>
    compareVersions(a.version, b.version),
  );
  const baseline =
    options.baseline === undefined ? undefined : bundledVersion(options.baseline, set);
  return { set, baseline };
}

/**
 * The migrator's rules (spec §17.3), run while the dialect holds its migration lock: a baseline
 * only on a database without history, no migration onto QueueBox tables without history,
 * Flyway's baselineOnMigrate at version 0 on a schema that already holds something, then every
 * pending file in its own transaction together with its history row, so a failed file leaves
 * neither its changes nor a row behind. `baseline` is already in its bundled spelling.
 */
export async function migrateLocked(
  session: MigrationSession,
  set: readonly Migration[],
  options: RunMigrationsOptions,
): Promise<MigrationReport> {
  const { logger } = options;
  const tableExists = await session.historyTableExists();
  const history = tableExists ? await session.readHistory() : [];
  const hasHistory = history.length > 0;
  let baseline: string | null = null;

  if (options.baseline !== undefined) {
    if (hasHistory) throw new QueueBoxError('migration_failed', BASELINE_REFUSED);
    baseline = options.baseline;
  } else if (!hasHistory) {
    if (await session.hasQueueBoxTables()) {
      throw new QueueBoxError('migration_failed', TABLES_WITHOUT_HISTORY);
    }
    // Flyway's baselineOnMigrate at version 0: only a schema that already holds something (the
    // application's own tables) gets a baseline row; an empty one starts with V1 at rank 1.
    if (await session.schemaHasObjects()) baseline = '0';
  }

  if (!hasHistory) {
    const version = baseline;
    await session.inTransaction(async () => {
      if (!tableExists) await session.createHistoryTable();
      if (version !== null) {
        await session.insertHistoryRow({
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

  // With a history nothing above wrote to it, and the lock keeps every other migrator out, so the
  // rows read first are still the rows: one round trip less on every start of a migrated schema.
  const pending = pendingMigrations(
    set,
    hasHistory ? history : await session.readHistory(),
    options.target,
  );
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
  session: MigrationSession,
  migration: Migration,
  secrets: readonly string[],
): Promise<void> {
  try {
    await session.inTransaction(async () => {
      const started = performance.now();
      await session.runScript(migration.sql);
      await session.insertHistoryRow({
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

/** The bundled spelling of `version`, or the error that lists the bundled versions. */
function bundledVersion(version: string, set: readonly Migration[]): string {
  const found = set.find((migration) => sameVersion(migration.version, version.trim()));
  if (found) return found.version;
  throw new QueueBoxError(
    'migration_failed',
    `Version '${version}' is not a bundled migration, so QueueBox cannot record it as the baseline. The bundled versions are: ${set.map((m) => m.version).join(', ')}.`,
  );
}
