import type { DatabaseConfig, InboxColumn, OutboxColumn } from '../config/app-config.js';
import { QueueBoxError } from '../errors.js';
import { SQL_IDENTIFIER_PATTERN } from '../sql-identifier.js';

/**
 * The identifier rule of spec §3.6 as the database adapters apply it. Table and column names
 * come from configuration and end up inside SQL text (they cannot be bound as parameters), so
 * each is checked here, then quoted by the dialect (`"name"`, `[name]`). `key` names the
 * configuration key, so a bad name is reported where the operator can fix it.
 */
export function checkedIdentifier(name: string, key: string): string {
  if (!SQL_IDENTIFIER_PATTERN.test(name)) {
    throw new QueueBoxError(
      'config_invalid',
      `'${key}' must be an SQL identifier matching ${SQL_IDENTIFIER_PATTERN.source}, but it is '${name}'.`,
    );
  }
  return name;
}

/** A dialect's quoting of a checked identifier; `key` names the configuration key. */
export type QuoteIdentifier = (name: string, key: string) => string;

/**
 * The configured table and column names, validated and ALREADY QUOTED in the dialect's form,
 * ready to be placed into SQL text. Stores build their statements from this only, so column
 * mapping (spec §3.6) reaches every statement and no unchecked name ever does.
 */
export interface TableNames {
  outbox: string;
  inbox: string;
  outboxColumns: Record<OutboxColumn, string>;
  inboxColumns: Record<InboxColumn, string>;
}

export function tableNamesFrom(database: DatabaseConfig, quote: QuoteIdentifier): TableNames {
  return {
    outbox: quote(database.outboxTableName, 'database.outboxTableName'),
    inbox: quote(database.inboxTableName, 'database.inboxTableName'),
    outboxColumns: quoteAll(database.columnMapping.outbox, 'database.columnMapping.outbox', quote),
    inboxColumns: quoteAll(database.columnMapping.inbox, 'database.columnMapping.inbox', quote),
  };
}

function quoteAll<K extends string>(
  mapping: Readonly<Record<K, string>>,
  prefix: string,
  quote: QuoteIdentifier,
): Record<K, string> {
  const quoted = {} as Record<K, string>;
  for (const key of Object.keys(mapping) as K[]) {
    quoted[key] = quote(mapping[key], `${prefix}.${key}`);
  }
  return quoted;
}

/** A dialect's `tableNamesFrom`: the configured names, checked and quoted by `quote`. */
export function quotedTableNames(quote: QuoteIdentifier): (database: DatabaseConfig) => TableNames {
  return (database) => tableNamesFrom(database, quote);
}
