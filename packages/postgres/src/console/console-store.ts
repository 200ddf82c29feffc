import {
  type Clock,
  type ConsoleDetail,
  type ConsoleDetailRow,
  type ConsoleFilter,
  type ConsoleListRow,
  consolePage,
  type ConsolePage,
  type ConsolePosition,
  consoleRow,
  consoleStats,
  type ConsoleStore,
  type ConsoleTable,
  type Headers,
  type TableStats,
} from '@queuebox/core';
import type postgres from 'postgres';
import { countPlanned, runPlanned, toCount } from '../connection/run-statement.js';
import type { TableNames } from '../schema/table-names.js';
import * as statements from './console-sql.js';

/**
 * The console's queries on PostgreSQL. They run rarely and their best plan depends on the
 * filter's values (a partial index matches only a bound state), so each is planned per call.
 */
export function createPostgresConsoleStore(
  sql: postgres.Sql,
  tables: TableNames,
  clock: Clock,
): ConsoleStore {
  const reads = {
    outbox: statements.readStatement(tables, 'outbox'),
    inbox: statements.readStatement(tables, 'inbox'),
  };

  async function list(
    table: ConsoleTable,
    filter: ConsoleFilter,
    limit: number,
    after: ConsolePosition | null,
  ): Promise<ConsolePage> {
    // One row more than asked tells whether a next page exists without a count.
    const { text, params } = statements.listStatement(tables, table, filter, limit + 1, after);
    return consolePage(await runPlanned<ConsoleListRow>(sql, text, params), limit);
  }

  async function read(table: ConsoleTable, id: string): Promise<ConsoleDetail | null> {
    const rows = await runPlanned<DetailRow>(sql, reads[table], [id]);
    const row = rows[0];
    if (row === undefined) return null;
    return { ...consoleRow(row), ...row, headers: row.headers ?? {} };
  }

  async function stats(table: ConsoleTable, maxGroups: number): Promise<TableStats> {
    const [states, dead] = await Promise.all([
      runPlanned<{ state: string; count: string }>(
        sql,
        statements.countByStateStatement(tables, table),
        [],
      ),
      runPlanned<{ group: string; reason: string; count: string }>(
        sql,
        statements.deadGroupsStatement(tables, table),
        [maxGroups],
      ),
    ]);
    return consoleStats(states, dead, toCount);
  }

  async function requeueInbox(filter: ConsoleFilter, limit: number): Promise<number> {
    const { text, params } = statements.requeueInboxStatement(tables, filter, limit, clock.now());
    return countPlanned(sql, text, params);
  }

  async function discardDead(
    table: ConsoleTable,
    filter: ConsoleFilter,
    limit: number,
  ): Promise<number> {
    const { text, params } = statements.discardStatement(tables, table, filter, limit);
    return countPlanned(sql, text, params);
  }

  return { list, read, stats, requeueInbox, discardDead };
}

type DetailRow = ConsoleDetailRow<Headers | null>;
