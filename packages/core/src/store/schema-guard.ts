import type { DatabaseConfig } from '../config/app-config.js';
import { QueueBoxError } from '../errors.js';
import type { QuoteIdentifier } from './table-names.js';

/**
 * The schema guard of spec §3.6, run at every start whatever `database.migrate` says: the inbox
 * must have the mapped `headers` column (V10) and the outbox the mapped `sequence` column (V11).
 * Custom (renamed) tables get no migrations, so this is where an operator learns the exact DDL
 * to run. No other column is checked; a missing one fails the first statement that names it.
 * The texts are the same on every dialect; the DDL in them is the dialect's.
 */
export interface SchemaRequirement {
  readonly role: 'inbox' | 'outbox';
  readonly table: string;
  readonly column: string;
  readonly fix: string;
}

/** The quoted names the dialect's DDL for the two guarded columns needs. */
export interface GuardedNames {
  readonly inbox: string;
  readonly outbox: string;
  readonly headers: string;
  readonly sequence: string;
  readonly key: string;
  readonly state: string;
  readonly index: string;
}

/** The dialect's DDL: what adds each guarded column. */
export interface GuardDdl {
  headers(names: GuardedNames): string;
  sequence(names: GuardedNames): string;
}

/** The DDL each missing column needs, with the configured (quoted) names. */
export function schemaRequirements(
  database: DatabaseConfig,
  quote: QuoteIdentifier,
  ddl: GuardDdl,
): SchemaRequirement[] {
  const ic = database.columnMapping.inbox;
  const oc = database.columnMapping.outbox;
  const names: GuardedNames = {
    inbox: quote(database.inboxTableName, 'database.inboxTableName'),
    outbox: quote(database.outboxTableName, 'database.outboxTableName'),
    headers: quote(ic.headers, 'database.columnMapping.inbox.headers'),
    sequence: quote(oc.sequence, 'database.columnMapping.outbox.sequence'),
    key: quote(oc.key, 'database.columnMapping.outbox.key'),
    state: quote(oc.state, 'database.columnMapping.outbox.state'),
    index: quote(
      `idx_${database.outboxTableName.toLowerCase()}_key_sequence`,
      'database.outboxTableName',
    ),
  };
  return [
    { role: 'inbox', table: database.inboxTableName, column: ic.headers, fix: ddl.headers(names) },
    {
      role: 'outbox',
      table: database.outboxTableName,
      column: oc.sequence,
      fix: ddl.sequence(names),
    },
  ];
}

/**
 * Checks every requirement with the dialect's `columnsOf` (a table's column names, or null when
 * it does not exist) and reports all problems at once.
 */
export async function guardSchema(
  requirements: readonly SchemaRequirement[],
  columnsOf: (table: string) => Promise<readonly string[] | null>,
): Promise<void> {
  const problems: string[] = [];
  for (const requirement of requirements) {
    const columns = await columnsOf(requirement.table);
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

/** The name forms a table is looked up by, in order, as the reference asked JDBC metadata. */
export function tableNameCandidates(table: string): string[] {
  return [...new Set([table, table.toLowerCase(), table.toUpperCase()])];
}

/**
 * The columns of the first candidate form that the catalog rows name, matched exactly (a
 * catalog may compare case-insensitively); null when none of the forms exists.
 */
export function columnsOfFirstMatch(
  rows: readonly { table_name: string; column_name: string | null }[],
  table: string,
): string[] | null {
  for (const candidate of tableNameCandidates(table)) {
    const found = rows.filter((row) => row.table_name === candidate);
    if (found.length > 0)
      return found.flatMap((row) => (row.column_name === null ? [] : [row.column_name]));
  }
  return null;
}
