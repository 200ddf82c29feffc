import { quotedTableNames } from '@queuebox/core';
import { quoteIdentifier } from './identifiers.js';

export type { TableNames } from '@queuebox/core';

/** The configured names, checked and quoted for SQL Server (`[outbox]`, `[topic]`). */
export const tableNamesFrom = quotedTableNames(quoteIdentifier);
