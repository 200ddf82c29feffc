import type postgres from 'postgres';

/** A value bound as a parameter: never interpolated into SQL text. */
export type Param = postgres.ParameterOrJSON<never>;

/**
 * Runs one of the store's statements as a named prepared statement. The text is built once per
 * store from the configured (validated, quoted) identifiers, so postgres.js parses and plans it
 * once per connection; every value travels as a parameter.
 */
export function runPrepared<T extends object>(sql: postgres.Sql, text: string, params: readonly Param[]): Promise<T[]> {
  return sql.unsafe<T[]>(text, params as Param[], { prepare: true });
}

/** postgres.js returns int8 as text, so counts and ids of such columns come through here. */
export function toCount(value: string | number | bigint | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}
