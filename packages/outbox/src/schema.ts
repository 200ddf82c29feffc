import {
  DEFAULT_OUTBOX_COLUMNS,
  OUTBOX_INSERT_COLUMNS,
  SQL_IDENTIFIER_PATTERN,
  isSqlIdentifier,
  type OutboxColumn,
  type OutboxInsertNames,
} from '@queuebox/core';

/**
 * Where the outbox is, when it is not the default `outbox` table: the same names as QueueBox's
 * `database.outboxTableName` and `database.columnMapping.outbox` (spec §3.6), so the block can
 * be copied from the QueueBox configuration as it is. Keys that the insert does not write
 * (`state`, `attempt`, ...) are accepted and checked, then left unused.
 */
export interface OutboxSchema {
  /** `database.outboxTableName`; default `outbox`. */
  readonly table?: string;
  /** `database.columnMapping.outbox`; each unnamed column keeps its default name. */
  readonly columns?: Readonly<Partial<Record<OutboxColumn, string>>>;
}

/** Validates every name against QueueBox's identifier rule, then quotes it for PostgreSQL. */
export function resolveSchema(schema: OutboxSchema = {}): OutboxInsertNames {
  const table = quote(schema.table ?? 'outbox', 'table');
  const mapping = { ...DEFAULT_OUTBOX_COLUMNS };
  for (const [key, name] of Object.entries(schema.columns ?? {})) {
    if (!(key in DEFAULT_OUTBOX_COLUMNS)) {
      throw new TypeError(
        `The outbox column key '${key}' is unknown; use the keys of QueueBox's database.columnMapping.outbox (${Object.keys(DEFAULT_OUTBOX_COLUMNS).join(', ')}).`,
      );
    }
    if (name !== undefined) mapping[key as OutboxColumn] = name;
  }
  for (const key of Object.keys(mapping) as OutboxColumn[]) quote(mapping[key], `columns.${key}`);
  const columns = {} as Record<(typeof OUTBOX_INSERT_COLUMNS)[number], string>;
  for (const key of OUTBOX_INSERT_COLUMNS) columns[key] = quote(mapping[key], `columns.${key}`);
  return { table, columns };
}

function quote(name: unknown, option: string): string {
  if (typeof name !== 'string' || !isSqlIdentifier(name)) {
    throw new TypeError(
      `The outbox schema name '${option}' is ${JSON.stringify(name)}, which is not an SQL identifier: it must match ${SQL_IDENTIFIER_PATTERN.source}, the rule QueueBox's configuration applies.`,
    );
  }
  return `"${name}"`;
}
