import type { DatabaseConfig, InboxColumn, OutboxColumn } from '@queuebox/core';
import { quoteIdentifier } from './identifiers.js';

/**
 * The configured table and column names, validated and ALREADY QUOTED (`[outbox]`, `[topic]`),
 * ready to be placed into SQL text. Stores build their statements from this only, so column
 * mapping (spec §3.6) reaches every statement and no unchecked name ever does.
 */
export interface TableNames {
  outbox: string;
  inbox: string;
  outboxColumns: Record<OutboxColumn, string>;
  inboxColumns: Record<InboxColumn, string>;
}

export function tableNamesFrom(database: DatabaseConfig): TableNames {
  return {
    outbox: quoteIdentifier(database.outboxTableName, 'database.outboxTableName'),
    inbox: quoteIdentifier(database.inboxTableName, 'database.inboxTableName'),
    outboxColumns: quoteAll(database.columnMapping.outbox, 'database.columnMapping.outbox'),
    inboxColumns: quoteAll(database.columnMapping.inbox, 'database.columnMapping.inbox'),
  };
}

function quoteAll<K extends string>(
  mapping: Readonly<Record<K, string>>,
  prefix: string,
): Record<K, string> {
  const quoted = {} as Record<K, string>;
  for (const key of Object.keys(mapping) as K[]) {
    quoted[key] = quoteIdentifier(mapping[key], `${prefix}.${key}`);
  }
  return quoted;
}
