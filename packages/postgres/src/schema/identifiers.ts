import { SQL_IDENTIFIER_PATTERN, checkedIdentifier } from '@queuebox/core';

/**
 * The identifier rule of spec §3.6 (core's `checkedIdentifier`), quoted for PostgreSQL; the
 * rule refuses `"`, which would end a quoted PostgreSQL identifier.
 */
export const IDENTIFIER_PATTERN = SQL_IDENTIFIER_PATTERN;

/** Quotes a validated identifier for PostgreSQL; `key` names the configuration key. */
export function quoteIdentifier(name: string, key: string): string {
  return `"${checkedIdentifier(name, key)}"`;
}
