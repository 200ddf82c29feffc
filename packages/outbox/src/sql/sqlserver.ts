import { OUTBOX_INSERT_COLUMNS, type OutboxInsertNames } from '@queuebox/core';
import type { OutboxRow } from '../message.js';

/**
 * The outbox insert on SQL Server, for an application's `mssql` transaction. It writes the same
 * columns with the same defaults as the insert of `@queuebox/sqlserver`'s store (a row an
 * application writes and one QueueBox writes cannot differ), but binds every value as text and
 * converts it in SQL, so mssql never has to guess a type (it would bind a Date as DATETIME, at
 * 3 ms precision, and a number as INT or FLOAT by its value).
 *
 * One single-row INSERT per message, in array order, as the store does: SQL Server gives the
 * `sequence` default an order statement by statement only.
 */

/** A named parameter (`@topic0` in the text, `topic0` here) and its text value. */
export interface NamedParam {
  readonly name: string;
  readonly value: string | null;
}

export interface SqlServerStatement {
  readonly text: string;
  readonly params: readonly NamedParam[];
}

/**
 * A request holds at most 2,100 parameters; eight per row leaves room for 262 rows, so larger
 * batches are sent as several requests, in order, in the caller's transaction.
 */
export const ROWS_PER_REQUEST = 250;

/** The PostgreSQL-quoted names (`"outbox"`) of `resolveSchema`, bracketed for SQL Server. */
export function sqlServerNames(names: OutboxInsertNames): OutboxInsertNames {
  const bracket = (quoted: string) => `[${quoted.slice(1, -1)}]`;
  const columns = {} as Record<(typeof OUTBOX_INSERT_COLUMNS)[number], string>;
  for (const key of OUTBOX_INSERT_COLUMNS) columns[key] = bracket(names.columns[key]);
  return { table: bracket(names.table), columns };
}

export function sqlServerInsert(
  names: OutboxInsertNames,
  rows: readonly OutboxRow[],
): SqlServerStatement {
  const columns = OUTBOX_INSERT_COLUMNS.map((column) => names.columns[column]).join(', ');
  const text = rows
    .map(
      (_row, i) =>
        `INSERT INTO ${names.table} (${columns}) VALUES (CAST(@id${i} AS UNIQUEIDENTIFIER), @topic${i}, @key${i}, @aggregateType${i}, @payload${i}, COALESCE(@headers${i}, N'{}'), COALESCE(CAST(@maxAttempts${i} AS INT), 5), COALESCE(CONVERT(DATETIME2, @scheduledAt${i}, 127), GETUTCDATE()));`,
    )
    .join('\n');
  const params = rows.flatMap((row, i): NamedParam[] => [
    { name: `id${i}`, value: row.id },
    { name: `topic${i}`, value: row.topic },
    { name: `key${i}`, value: row.key },
    { name: `aggregateType${i}`, value: row.aggregateType },
    { name: `payload${i}`, value: row.payload },
    { name: `headers${i}`, value: row.headers },
    { name: `maxAttempts${i}`, value: row.maxAttempts },
    { name: `scheduledAt${i}`, value: row.scheduledAt },
  ]);
  return { text, params };
}
