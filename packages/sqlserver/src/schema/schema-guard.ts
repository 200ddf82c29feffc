import { QueueBoxError, type DatabaseConfig } from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import { nvarchar, statement, type Statement } from '../sql/statement.js';
import { quoteIdentifier } from './identifiers.js';

/**
 * The schema guard of spec §3.6, run at every start whatever `database.migrate` says: the inbox
 * must have the mapped `headers` column (V10) and the outbox the mapped `sequence` column (V11).
 * The texts are the PostgreSQL provider's; the DDL in them is SQL Server's. No other column is
 * checked; a missing one fails the first statement that names it.
 */
interface Requirement {
  readonly role: 'inbox' | 'outbox';
  readonly table: string;
  readonly column: string;
  readonly fix: string;
}

export async function checkSchema(pool: SqlServerPool, database: DatabaseConfig): Promise<void> {
  const problems: string[] = [];
  for (const requirement of requirementsOf(database)) {
    const columns = await columnsOf(pool, requirement.table);
    if (columns === null) {
      problems.push(
        `The ${requirement.role} table '${requirement.table}' does not exist, so it has no column '${requirement.column}'. Create the table (for the default tables run \`queuebox migrate\`), and make sure it has the column: ${requirement.fix}`,
      );
    } else if (!columns.some((name) => name.toLowerCase() === requirement.column.toLowerCase())) {
      problems.push(
        `The ${requirement.role} table '${requirement.table}' has no column '${requirement.column}'. Add it with: ${requirement.fix}`,
      );
    }
  }
  if (problems.length > 0) throw new QueueBoxError('schema_invalid', problems.join(' '));
}

/** The DDL each missing column needs, with the configured (quoted) names. */
export function requirementsOf(database: DatabaseConfig): Requirement[] {
  const inbox = quoteIdentifier(database.inboxTableName, 'database.inboxTableName');
  const outbox = quoteIdentifier(database.outboxTableName, 'database.outboxTableName');
  const ic = database.columnMapping.inbox;
  const oc = database.columnMapping.outbox;
  const headers = quoteIdentifier(ic.headers, 'database.columnMapping.inbox.headers');
  const sequence = quoteIdentifier(oc.sequence, 'database.columnMapping.outbox.sequence');
  const key = quoteIdentifier(oc.key, 'database.columnMapping.outbox.key');
  const state = quoteIdentifier(oc.state, 'database.columnMapping.outbox.state');
  const index = quoteIdentifier(
    `idx_${database.outboxTableName.toLowerCase()}_key_sequence`,
    'database.outboxTableName',
  );
  return [
    {
      role: 'inbox',
      table: database.inboxTableName,
      column: ic.headers,
      fix: `ALTER TABLE ${inbox} ADD ${headers} NVARCHAR(MAX) NOT NULL DEFAULT '{}';`,
    },
    {
      role: 'outbox',
      table: database.outboxTableName,
      column: oc.sequence,
      fix:
        `ALTER TABLE ${outbox} ADD ${sequence} BIGINT IDENTITY(1,1) NOT NULL; ` +
        `CREATE INDEX ${index} ON ${outbox} (${key}, ${sequence}) WHERE ${state} IN ('pending','processing');`,
    },
  ];
}

/**
 * The columns of a table in the default schema, looked up as written, lower-cased and
 * upper-cased (in that order, as the reference asked JDBC metadata); none found → null. Bound,
 * not quoted: these are values here, not identifiers.
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
  for (const candidate of [table, table.toLowerCase(), table.toUpperCase()]) {
    // sys.tables compares with the database collation (often case-insensitive): match exactly here.
    const found = rows.filter((row) => row.table_name === candidate);
    if (found.length > 0)
      return found.flatMap((row) => (row.column_name === null ? [] : [row.column_name]));
  }
  return null;
}
