import type { SqlDialect } from './options.js';
import { resolveSchema, type InboxSchema } from './schema.js';
import {
  postgresqlStatements,
  type InboxStatements,
  type StatementOptions,
} from './sql/postgresql.js';

/** The five pull statements of `dialect` on `schema` (merged onto the default names, validated). */
export function inboxSql(
  dialect: SqlDialect,
  schema: Partial<InboxSchema> = {},
  options: StatementOptions = {},
): InboxStatements {
  const names = resolveSchema(schema);
  if (dialect === 'postgresql') return postgresqlStatements(names, options);
  if (dialect === 'sqlserver') {
    // The SQL Server statements and fromMssql arrive with QueueBox's SQL Server support.
    throw new TypeError(
      'The sqlserver dialect is not supported by this release of @queuebox/inbox.',
    );
  }
  throw new TypeError('The dialect must be "postgresql" or "sqlserver".');
}
