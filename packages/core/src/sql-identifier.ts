/**
 * The identifier rule for table and column names (spec §9.3's form of §3.6's rule): they are
 * placed into SQL text (names cannot be bound as parameters), so each must be a plain identifier
 * before it is quoted. The rule also refuses `"` and `]`, which would end a quoted name. One
 * definition serves the configuration, the database adapters and the client packages, so a name
 * one accepts the others accept too.
 *
 * At most 63 characters: PostgreSQL cuts a longer name to its first 63 bytes without an error,
 * so two configured names that differ after that would silently be one table, and a name that
 * differs from an existing table only after it would write into that table.
 */
export const SQL_IDENTIFIER_MAX_LENGTH = 63;

export const SQL_IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

export function isSqlIdentifier(name: string): boolean {
  return SQL_IDENTIFIER_PATTERN.test(name);
}
