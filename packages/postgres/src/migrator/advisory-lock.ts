import { javaStringHashCode } from '@queuebox/core';

/**
 * The advisory lock that serializes migrators. The key is the one Flyway takes on PostgreSQL
 * for its history table ("Flyway" in ASCII plus the Java hash of the quoted table name), so a
 * QueueBox 0.8.1 replica running Flyway and this migrator exclude each other too while both
 * versions are deployed.
 */

/** "Flyway" as Flyway packs it into a long. */
const FLYWAY_LOCK_MAGIC =
  (0x46n << 40n) + (0x6cn << 32n) + (0x79n << 24n) + (0x77n << 16n) + (0x61n << 8n) + 0x79n;

/** The lock key Flyway uses for `"<schema>"."<table>"`. */
export function flywayLockKey(schema: string, table: string): bigint {
  return FLYWAY_LOCK_MAGIC + BigInt(javaStringHashCode(`"${schema}"."${table}"`));
}
