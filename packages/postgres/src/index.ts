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
import { afterWaiting, sqlDatabaseProvider, type DatabaseProvider } from '@queuebox/core';
import { createPool, poolOptions } from './connection/pool.js';
import { warnAboutDriverFaults } from './connection/driver-check.js';
import { createPostgresDatabase } from './postgres-database.js';
import { observePool } from './connection/reserved-connection.js';
import { tableNamesFrom } from './schema/table-names.js';
import { waitForDatabase } from './connection/wait-for-database.js';

export { migrations, type Migration } from './migrations/index.js';
export { runMigrations } from './migrator/migrate.js';
export { flywayChecksum, crc32, compareVersions } from '@queuebox/core';
export { flywayLockKey } from './migrator/advisory-lock.js';
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

export const provider: DatabaseProvider = sqlDatabaseProvider({
  name: 'postgresql',
  label: 'PostgreSQL',
  checks: [tableNamesFrom, poolOptions],
  open(database, deps) {
    const tables = tableNamesFrom(database);
    warnAboutDriverFaults(deps.logger);
    const sql = createPool(database);
    if (deps.pool) observePool(sql, deps.pool);
    return afterWaiting(
      () =>
        waitForDatabase(sql, {
          startupTimeoutMs: database.startupTimeoutMs,
          attemptTimeoutMs: database.connectionTimeoutMs,
          logger: deps.logger,
          secrets: [database.password.reveal()],
        }),
      () => sql.end({ timeout: 0 }),
      () => createPostgresDatabase(sql, database, tables, deps),
    );
  },
});
