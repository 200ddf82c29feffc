/**
 * The identifier rule of spec §3.6 for table and column names: they are placed into SQL text
 * (names cannot be bound as parameters), so each must be a plain identifier before it is quoted.
 * The rule also refuses `"` and `]`, which would end a quoted name. One definition serves the
 * configuration, the database adapters and the client packages, so a name one accepts the others
 * accept too.
 */
export const SQL_IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isSqlIdentifier(name: string): boolean {
  return SQL_IDENTIFIER_PATTERN.test(name);
}
