import {
  tableNamesFrom as quotedTableNames,
  type DatabaseConfig,
  type TableNames,
} from '@queuebox/core';
import { quoteIdentifier } from './identifiers.js';

export type { TableNames } from '@queuebox/core';

/** The configured names, checked and quoted for SQL Server (`[outbox]`, `[topic]`). */
export function tableNamesFrom(database: DatabaseConfig): TableNames {
  return quotedTableNames(database, quoteIdentifier);
}
