import type { NewHistoryRow } from '@queuebox/core';
import { int, nvarchar, statement, type Statement } from '../sql/statement.js';

/**
 * Flyway's schema history table as Flyway creates it on SQL Server (spec §3.5): the PostgreSQL
 * columns with NVARCHAR, DATETIME (default GETDATE()) and BIT, the same primary key and index
 * names, in the connection's default schema. A database the reference migrated is read as it is.
 */
export { HISTORY_TABLE, BASELINE_DESCRIPTION } from '@queuebox/core';

export const createHistoryTable: Statement = statement(`CREATE TABLE flyway_schema_history (
    installed_rank INT NOT NULL,
    version NVARCHAR(50),
    description NVARCHAR(200) NOT NULL,
    type NVARCHAR(20) NOT NULL,
    script NVARCHAR(1000) NOT NULL,
    checksum INT,
    installed_by NVARCHAR(100) NOT NULL,
    installed_on DATETIME NOT NULL DEFAULT GETDATE(),
    execution_time INT NOT NULL,
    success BIT NOT NULL
);
ALTER TABLE flyway_schema_history ADD CONSTRAINT flyway_schema_history_pk PRIMARY KEY (installed_rank);
CREATE INDEX flyway_schema_history_s_idx ON flyway_schema_history (success);
`);

/** Whether the history table exists in the default schema (sys.tables sees it without rights). */
export const historyTableExists: Statement = statement(
  `SELECT COUNT(*) AS found FROM sys.tables WHERE name = N'flyway_schema_history' AND schema_id = SCHEMA_ID()`,
);

export const readHistory: Statement = statement(
  `SELECT installed_rank, version, type, success FROM flyway_schema_history ORDER BY installed_rank`,
);

/** Appends one row; the caller holds the migration lock, so MAX + 1 cannot race. */
export function insertHistoryRow(row: NewHistoryRow): Statement {
  return statement(
    `INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum, installed_by, execution_time, success)
SELECT COALESCE(MAX(installed_rank), 0) + 1, @version, @description, @type, @script, @checksum, SUSER_SNAME(), @executionTime, 1
FROM flyway_schema_history`,
    [
      nvarchar('version', row.version),
      nvarchar('description', row.description),
      nvarchar('type', row.type),
      nvarchar('script', row.script),
      int('checksum', row.checksum),
      int('executionTime', row.executionTimeMs),
    ],
  );
}

/**
 * One migrator at a time per database: a session-owned app lock held for the whole run (the
 * run spans several transactions). A second replica waits, then finds everything applied.
 */
export const MIGRATION_LOCK = 'queuebox_migrate_flyway_schema_history';

export const acquireMigrationLock: Statement = statement(
  `DECLARE @result INT;
EXEC @result = sp_getapplock @Resource = N'${MIGRATION_LOCK}', @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = -1;
SELECT @result AS result;`,
);

export const releaseMigrationLock: Statement = statement(
  `EXEC sp_releaseapplock @Resource = N'${MIGRATION_LOCK}', @LockOwner = 'Session';`,
);

/** The default tables the bundled migrations create; the guard looks for these (spec §17.3). */
const QUEUEBOX_TABLES = ['outbox', 'inbox'];

/**
 * QueueBox tables that already exist in the default schema, each name matched as written,
 * lower-cased and upper-cased (spec §17.3). Exact equality on the catalog needs no LIKE escaping.
 * sys.objects, not INFORMATION_SCHEMA, which hides tables the user has no right on.
 */
export const existingQueueBoxTables: Statement = statement(
  `SELECT name FROM sys.objects WHERE schema_id = SCHEMA_ID() AND type IN ('U', 'V') AND name IN (${[
    ...new Set(QUEUEBOX_TABLES.flatMap((name) => [name, name.toLowerCase(), name.toUpperCase()])),
  ]
    .map((name) => `N'${name}'`)
    .join(', ')}) ORDER BY name`,
);

/**
 * Whether the default schema holds anything besides the history table: Flyway's non-empty
 * schema, where baselineOnMigrate records a baseline at version 0 first. Microsoft-shipped
 * objects do not count.
 */
export const schemaHasObjects: Statement = statement(
  `SELECT COUNT(*) AS found FROM sys.objects WHERE schema_id = SCHEMA_ID() AND is_ms_shipped = 0 AND parent_object_id = 0 AND name <> N'flyway_schema_history'`,
);

export const defaultSchema: Statement = statement(`SELECT SCHEMA_NAME() AS name`);
