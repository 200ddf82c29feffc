import type postgres from 'postgres';

/** The default tables the bundled migrations create; the guard looks for these (spec §17.3). */
const QUEUEBOX_TABLES = ['outbox', 'inbox'];

/**
 * The QueueBox tables that already exist in the default schema. Each name is matched as
 * written, lower-cased and upper-cased (the reference asked JDBC metadata for each); exact
 * equality on the catalog needs no LIKE escaping of `_` and `%`.
 */
export async function existingQueueBoxTables(
  sql: postgres.Sql | postgres.ReservedSql,
): Promise<string[]> {
  const candidates = [
    ...new Set(QUEUEBOX_TABLES.flatMap((name) => [name, name.toLowerCase(), name.toUpperCase()])),
  ];
  // pg_class, not information_schema: the latter hides tables the user has no privilege on,
  // and such a table must still stop the migration.
  const rows = await sql<{ table_name: string }[]>`
    SELECT c.relname::text AS table_name
    FROM pg_catalog.pg_class c
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema()
      AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
      AND c.relname = ANY(${candidates}::text[])
    ORDER BY 1`;
  return rows.map((row) => row.table_name);
}

/**
 * Whether the default schema holds anything besides the history table: what Flyway calls a
 * non-empty schema, where baselineOnMigrate records a baseline before the first migration.
 * Objects that belong to an extension do not count, as in Flyway.
 */
export async function schemaHasObjects(sql: postgres.Sql | postgres.ReservedSql): Promise<boolean> {
  const rows = await sql<{ found: boolean }[]>`
    SELECT EXISTS (
      SELECT 1 FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema()
        AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
        AND c.relname <> 'flyway_schema_history'
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
      UNION ALL
      SELECT 1 FROM pg_catalog.pg_proc p
      JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = current_schema()
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
      UNION ALL
      SELECT 1 FROM pg_catalog.pg_type t
      JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = current_schema()
        AND t.typtype IN ('e', 'd', 'r')
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.objid = t.oid AND d.deptype = 'e')
    ) AS found`;
  return rows[0]?.found === true;
}
