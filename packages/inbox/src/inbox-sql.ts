import type { SqlDialect } from './options.js';
import { resolveSchema, type InboxSchema } from './schema.js';
import { postgresqlStatements } from './sql/postgresql.js';
import { sqlserverStatements } from './sql/sqlserver.js';
import type { InboxStatements, StatementOptions } from './sql/statement.js';

/** The five pull statements of `dialect` on `schema` (merged onto the default names, validated). */
export function inboxSql(
  dialect: SqlDialect,
  schema: Partial<InboxSchema> = {},
  options: StatementOptions = {},
): InboxStatements {
  const names = resolveSchema(schema);
  if (dialect === 'postgresql') return postgresqlStatements(names, options);
  if (dialect === 'sqlserver') return sqlserverStatements(names, options);
  throw new TypeError('The dialect must be "postgresql" or "sqlserver".');
}
