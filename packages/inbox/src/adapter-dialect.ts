import type { InboxConnectionSource } from './connections.js';
import type { SqlDialect } from './options.js';

/**
 * The dialect each adapter speaks, so a worker given fromMssql connections without
 * `dialect: 'sqlserver'` (or fromPg ones with it) fails at construction with the fix, instead
 * of logging "The claim failed." every poll interval. The option itself stays required, as in
 * the reference client: a wrapped source (one the caller built around an adapter's) is not
 * known here and is not checked.
 */
const spoken = new WeakMap<InboxConnectionSource, { adapter: string; dialect: SqlDialect }>();

export function tagAdapter<T extends InboxConnectionSource>(
  source: T,
  adapter: string,
  dialect: SqlDialect,
): T {
  spoken.set(source, { adapter, dialect });
  return source;
}

export function checkAdapterDialect(source: InboxConnectionSource, dialect: SqlDialect): void {
  const tag = spoken.get(source);
  if (tag === undefined || tag.dialect === dialect) return;
  throw new TypeError(
    tag.dialect === 'sqlserver'
      ? `The connections come from ${tag.adapter}, which speaks SQL Server: set dialect: "sqlserver".`
      : `The connections come from ${tag.adapter}, which speaks PostgreSQL: set dialect: "postgresql" (the default).`,
  );
}
