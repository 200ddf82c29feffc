import type postgres from 'postgres';

/** A value bound as a parameter: never interpolated into SQL text. */
export type Param = postgres.ParameterOrJSON<never>;

/**
 * Runs a statement as a named prepared statement whose plan PostgreSQL caches per connection.
 * Only for statements whose generic plan is right at any table size: the insert (no scan at
 * all). Claims and fenced writes are prepared too, but inside `pipelinedTransaction` with a
 * planner guard in front. The text is built once per store from the configured identifiers;
 * every value travels as a parameter.
 */
export function runCached<T extends object>(
  sql: postgres.Sql,
  text: string,
  params: readonly Param[],
): Promise<T[]> {
  return sql.unsafe<T[]>(text, params as Param[], { prepare: true });
}

/**
 * Runs a statement that PostgreSQL plans on every call (unnamed statement), for statements whose
 * best plan depends on how big the table is now and that run rarely (reclaim, gauges, retention,
 * replay): postgres.js spends two round trips on each (it describes an unnamed statement before
 * executing it). A cached generic plan is made once per connection and kept until the table's
 * statistics change; made while the outbox was empty (a replica that starts before the backlog
 * arrives, a database without autovacuum) it is a sequential scan, whose cost grows with the
 * table. Planning the statements here afresh costs little.
 */
export function runPlanned<T extends object>(
  sql: postgres.Sql,
  text: string,
  params: readonly Param[],
): Promise<T[]> {
  return sql.unsafe<T[]>(text, params as Param[], { prepare: false });
}

/** Rows changed by an UPDATE or DELETE that returns none, planned per call as above. */
export async function countPlanned(
  sql: postgres.Sql,
  text: string,
  params: readonly Param[],
): Promise<number> {
  const result = await sql.unsafe(text, params as Param[], { prepare: false });
  return result.count;
}

/** postgres.js returns int8 as text, so counts of such columns come through here. */
export function toCount(value: string | number | bigint | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}
