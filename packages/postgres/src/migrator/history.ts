import { HISTORY_TABLE, type HistoryRow, type NewHistoryRow } from '@queuebox/core';
import type postgres from 'postgres';

export { HISTORY_TABLE, BASELINE_DESCRIPTION } from '@queuebox/core';

/**
 * Flyway's schema history table, read and written the way Flyway 0.8.1's reference build did on
 * PostgreSQL (spec §3.5): same table, columns, types, primary key and index names, so a database
 * the reference migrated is read as it is, and one we migrate looks the same to Flyway.
 */

/** The DDL Flyway runs on PostgreSQL, in the connection's default schema. */
const CREATE_HISTORY_TABLE = `CREATE TABLE flyway_schema_history (
    installed_rank INT NOT NULL,
    version VARCHAR(50),
    description VARCHAR(200) NOT NULL,
    type VARCHAR(20) NOT NULL,
    script VARCHAR(1000) NOT NULL,
    checksum INTEGER,
    installed_by VARCHAR(100) NOT NULL,
    installed_on TIMESTAMP NOT NULL DEFAULT now(),
    execution_time INTEGER NOT NULL,
    success BOOLEAN NOT NULL
);
ALTER TABLE flyway_schema_history ADD CONSTRAINT flyway_schema_history_pk PRIMARY KEY (installed_rank);
CREATE INDEX flyway_schema_history_s_idx ON flyway_schema_history (success);
`;

export async function historyTableExists(sql: postgres.ISql): Promise<boolean> {
  const rows = await sql<{ found: boolean }[]>`
    SELECT EXISTS (
      SELECT 1 FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relname = ${HISTORY_TABLE} AND c.relkind IN ('r', 'p')
    ) AS found`;
  return rows[0]?.found === true;
}

export async function createHistoryTable(sql: postgres.ISql): Promise<void> {
  await sql.unsafe(CREATE_HISTORY_TABLE);
}

export async function readHistory(sql: postgres.ISql): Promise<HistoryRow[]> {
  const rows = await sql<
    { installed_rank: number; version: string | null; type: string; success: boolean }[]
  >`
    SELECT installed_rank, version, type, success
    FROM flyway_schema_history
    ORDER BY installed_rank`;
  return rows.map((row) => ({
    installedRank: row.installed_rank,
    version: row.version,
    type: row.type,
    success: row.success,
  }));
}

/** Appends one row; the caller holds the migration lock, so MAX + 1 cannot race. */
export async function insertHistoryRow(sql: postgres.ISql, row: NewHistoryRow): Promise<void> {
  await sql`
    INSERT INTO flyway_schema_history
      (installed_rank, version, description, type, script, checksum, installed_by, execution_time, success)
    SELECT COALESCE(MAX(installed_rank), 0) + 1, ${row.version}::varchar, ${row.description}::varchar,
           ${row.type}::varchar, ${row.script}::varchar, ${row.checksum}::integer, current_user,
           ${row.executionTimeMs}::integer, true
    FROM flyway_schema_history`;
}
