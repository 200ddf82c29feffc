import {
  type Clock,
  type ConsoleDetail,
  type ConsoleDetailRow,
  type ConsoleFilter,
  type ConsoleListRow,
  consolePage,
  type ConsolePage,
  type ConsolePosition,
  consoleStats,
  type ConsoleStore,
  type ConsoleTable,
  type Headers,
  type TableStats,
} from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import { sqlServerError } from '../classify-error.js';
import type { TableNames } from '../schema/table-names.js';
import type { Statement } from '../sql/statement.js';
import { consoleStatements } from './console-statements.js';

type DetailRow = ConsoleDetailRow<string | null>;

/** The console's queries on SQL Server (console-statements.ts). */
export function createSqlServerConsoleStore(
  pool: SqlServerPool,
  tables: TableNames,
  clock: Clock,
): ConsoleStore {
  const s = consoleStatements(tables);
  const run = async <R>(action: string, query: Statement) => {
    try {
      return await pool.withSession((session) => session.run<R>(query));
    } catch (error: unknown) {
      throw sqlServerError(error, action);
    }
  };
  const lower = (id: string) => id.toLowerCase();

  return {
    async list(
      table: ConsoleTable,
      filter: ConsoleFilter,
      limit: number,
      after: ConsolePosition | null,
    ): Promise<ConsolePage> {
      // One row more than asked tells whether a next page exists without a count.
      const { rows } = await run<ConsoleListRow>(
        'list rows',
        s.list(table, filter, limit + 1, after),
      );
      return consolePage(rows, limit, lower);
    },
    async read(table: ConsoleTable, id: string): Promise<ConsoleDetail | null> {
      const [row] = (await run<DetailRow>('read a row', s.read(table, id))).rows;
      if (row === undefined) return null;
      return { ...row, id: lower(row.id), headers: parseHeaders(row.headers) };
    },
    async stats(table: ConsoleTable, maxGroups: number): Promise<TableStats> {
      const states = await run<{ state: string; count: string | number }>(
        'count rows by state',
        s.countByState(table),
      );
      const dead = await run<{ group: string; reason: string; count: string | number }>(
        'group dead rows',
        s.deadGroups(table, maxGroups),
      );
      return consoleStats(states.rows, dead.rows, Number);
    },
    async requeueInbox(filter: ConsoleFilter, limit: number): Promise<number> {
      return (await run('requeue dead inbox rows', s.requeueInbox(filter, limit, clock.now())))
        .rowCount;
    },
    async discardDead(table: ConsoleTable, filter: ConsoleFilter, limit: number): Promise<number> {
      return (await run('discard dead rows', s.discardDead(table, filter, limit))).rowCount;
    },
  };
}

function parseHeaders(text: string | null): Headers {
  if (text === null || text === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Headers)
      : {};
  } catch {
    return {};
  }
}
