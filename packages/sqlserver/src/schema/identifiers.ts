import { QueueBoxError, SQL_IDENTIFIER_PATTERN } from '@queuebox/core';

/**
 * The identifier rule of spec §3.6. Table and column names come from configuration and end up
 * inside SQL text (they cannot be bound as parameters), so each is checked against this rule and
 * then quoted as `[name]`; the rule refuses `]`, which would end a bracketed identifier.
 */
export const IDENTIFIER_PATTERN = SQL_IDENTIFIER_PATTERN;

/** Quotes a validated identifier for SQL Server; `key` names the configuration key. */
export function quoteIdentifier(name: string, key: string): string {
  if (!IDENTIFIER_PATTERN.test(name)) {
    throw new QueueBoxError(
      'config_invalid',
      `'${key}' must be an SQL identifier matching ${IDENTIFIER_PATTERN.source}, but it is '${name}'.`,
    );
  }
  return `[${name}]`;
}
