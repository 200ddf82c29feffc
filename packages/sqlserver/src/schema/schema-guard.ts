import {
  columnsOfFirstMatch,
  guardSchema,
  schemaRequirements,
  type DatabaseConfig,
  type SchemaRequirement,
} from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import { nvarchar, statement, type Statement } from '../sql/statement.js';
import { quoteIdentifier } from './identifiers.js';

/** The schema guard of spec §3.6 (core's `guardSchema`) with SQL Server's DDL and catalog. */
export async function checkSchema(pool: SqlServerPool, database: DatabaseConfig): Promise<void> {
  await guardSchema(requirementsOf(database), (table) => columnsOf(pool, table));
}

/** The DDL each missing column needs, with the configured (quoted) names. */
export function requirementsOf(database: DatabaseConfig): SchemaRequirement[] {
  return schemaRequirements(database, quoteIdentifier, {
    headers: (n) => `ALTER TABLE ${n.inbox} ADD ${n.headers} NVARCHAR(MAX) NOT NULL DEFAULT '{}';`,
    sequence: (n) =>
      `ALTER TABLE ${n.outbox} ADD ${n.sequence} BIGINT IDENTITY(1,1) NOT NULL; ` +
      `CREATE INDEX ${n.index} ON ${n.outbox} (${n.key}, ${n.sequence}) WHERE ${n.state} IN ('pending','processing');`,
  });
}

/**
 * The columns of a table in the default schema, looked up as written, lower-cased and
 * upper-cased. Bound, not quoted: these are values here, not identifiers.
 */
export function columnLookup(table: string): Statement {
  return statement(
    `SELECT t.name AS table_name, c.name AS column_name FROM sys.tables AS t LEFT JOIN sys.columns AS c ON c.object_id = t.object_id WHERE t.schema_id = SCHEMA_ID() AND t.name IN (@asWritten, @lower, @upper)`,
    [
      nvarchar('asWritten', table),
      nvarchar('lower', table.toLowerCase()),
      nvarchar('upper', table.toUpperCase()),
    ],
  );
}

async function columnsOf(pool: SqlServerPool, table: string): Promise<string[] | null> {
  const { rows } = await pool.withSession((session) =>
    session.run<{ table_name: string; column_name: string | null }>(columnLookup(table)),
  );
  // sys.tables compares with the database collation (often case-insensitive); the match is exact.
  return columnsOfFirstMatch(rows, table);
}
