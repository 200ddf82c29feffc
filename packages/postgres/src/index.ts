/**
 * @queuebox/postgres: QueueBox on PostgreSQL through postgres.js. It opens the pool and waits for
 * the database at start, applies the bundled migrations V1..V11 with a Flyway-compatible history
 * (so a database QueueBox 0.8.1 migrated is accepted as it is), runs the schema guard, and builds
 * the stores on the configured (validated, quoted) table and column names.
 *
 * It does not decide when to migrate (the app does, from `database.migrate` or the `migrate`
 * command), does not validate configuration beyond the identifiers it puts into SQL, and never
 * migrates renamed tables (config validation stops that combination).
 */
import {
  QueueBoxError,
  type AppConfig,
  type Database,
  type DatabaseDeps,
  type DatabaseProvider,
} from '@queuebox/core';
import { createPool, poolOptions } from './connection/pool.js';
import { warnAboutDriverFaults } from './connection/driver-check.js';
import { createPostgresDatabase } from './postgres-database.js';
import { observePool } from './connection/reserved-connection.js';
import { tableNamesFrom } from './schema/table-names.js';
import { waitForDatabase } from './connection/wait-for-database.js';

export { migrations, type Migration } from './migrations/index.js';
export {
  runMigrations,
  pendingMigrations,
  TABLES_WITHOUT_HISTORY,
  BASELINE_REFUSED,
  type RunMigrationsOptions,
} from './migrator/migrate.js';
export { flywayChecksum, crc32 } from './migrator/checksum.js';
export { flywayLockKey } from './migrator/advisory-lock.js';
export { compareVersions } from './migrator/versions.js';
export { HISTORY_TABLE, BASELINE_DESCRIPTION } from './migrator/history.js';
export { checkSchema } from './schema/schema-guard.js';
export { tableNamesFrom, type TableNames } from './schema/table-names.js';
export { IDENTIFIER_PATTERN, quoteIdentifier } from './schema/identifiers.js';
export { createPool, poolOptions, sslFrom } from './connection/pool.js';
export { waitForDatabase, type WaitForDatabaseOptions } from './connection/wait-for-database.js';
export { createPostgresDatabase } from './postgres-database.js';
export { createPostgresOutboxStore } from './outbox/outbox-store.js';
export { createPostgresInboxStore } from './inbox/inbox-store.js';
export { createPostgresRetentionStore } from './retention/retention-store.js';

async function open(config: AppConfig, deps: DatabaseDeps): Promise<Database> {
  const database = config.database;
  if (database.type !== 'postgresql') {
    throw new QueueBoxError(
      'config_invalid',
      `The PostgreSQL provider was asked to open a '${database.type}' database.`,
    );
  }
  // Identifiers are checked before any I/O: a bad name is a configuration error, not an outage.
  const tables = tableNamesFrom(database);
  warnAboutDriverFaults(deps.logger);
  const sql = createPool(database);
  if (deps.pool) observePool(sql, deps.pool);
  try {
    await waitForDatabase(sql, {
      startupTimeoutMs: database.startupTimeoutMs,
      attemptTimeoutMs: database.connectionTimeoutMs,
      logger: deps.logger,
      secrets: [database.password.reveal()],
    });
  } catch (error: unknown) {
    await sql.end({ timeout: 0 }).catch(() => undefined);
    throw error;
  }
  return createPostgresDatabase(sql, database, tables, deps);
}

/** What `open` refuses before it connects, as problem lines; opens nothing. */
function check(config: AppConfig): string[] {
  const problems: string[] = [];
  for (const run of [() => tableNamesFrom(config.database), () => poolOptions(config.database)]) {
    try {
      run();
    } catch (error: unknown) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  return problems;
}

export const provider: DatabaseProvider = { kind: 'database', name: 'postgresql', open, check };
