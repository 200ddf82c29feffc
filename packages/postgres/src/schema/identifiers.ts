import { QueueBoxError, SQL_IDENTIFIER_PATTERN } from '@queuebox/core';

/**
 * The identifier rule of spec §3.6. Table and column names come from configuration and end up
 * inside SQL text (they cannot be bound as parameters), so each is checked against this rule
 * and then quoted; the rule also refuses `"`, which would end a quoted PostgreSQL identifier.
 */
export const IDENTIFIER_PATTERN = SQL_IDENTIFIER_PATTERN;

export function isValidIdentifier(name: string): boolean {
  return IDENTIFIER_PATTERN.test(name);
}

/**
 * Quotes a validated identifier for PostgreSQL. `key` names the configuration key, so a bad
 * name is reported where the operator can fix it.
 */
export function quoteIdentifier(name: string, key: string): string {
  if (!isValidIdentifier(name)) {
    throw new QueueBoxError(
      'config_invalid',
      `'${key}' must be an SQL identifier matching ${IDENTIFIER_PATTERN.source}, but it is '${name}'.`,
    );
  }
  return `"${name}"`;
}
