import type {
  Clock,
  ConsoleDetail,
  ConsoleFilter,
  ConsolePage,
  ConsolePosition,
  ConsoleRow,
  ConsoleStore,
  ConsoleTable,
  Headers,
  TableStats,
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
    const rows = await runPlanned<ListRow>(sql, text, params);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      rows: page.map(toRow),
      next: rows.length > limit && last ? { createdAt: last.position, id: last.id } : null,
    };
  }

  async function read(table: ConsoleTable, id: string): Promise<ConsoleDetail | null> {
    const rows = await runPlanned<DetailRow>(sql, reads[table], [id]);
    const row = rows[0];
    if (row === undefined) return null;
    return { ...toRow(row), ...row, headers: row.headers ?? {} };
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
    return {
      byState: Object.fromEntries(states.map((r) => [r.state, toCount(r.count)])),
      dead: dead.map((r) => ({ group: r.group, reason: r.reason, count: toCount(r.count) })),
    };
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

interface ListRow {
  readonly id: string;
  readonly state: string;
  readonly group: string;
  readonly key: string | null;
  readonly attempt: number;
  readonly createdAt: Date;
  readonly position: string;
  readonly lastError: string | null;
}

interface DetailRow extends Omit<ListRow, 'position'> {
  readonly payload: string;
  readonly headers: Headers | null;
  readonly maxAttempts: number | null;
  readonly scheduledAt: Date | null;
  readonly updatedAt: Date | null;
  readonly claimedAt: Date | null;
  readonly leaseExpiresAt: Date | null;
  readonly type: string | null;
  readonly aggregateId: string | null;
  readonly correlationId: string | null;
  readonly consumption: string | null;
}

function toRow(row: Omit<ListRow, 'position'>): ConsoleRow {
  return {
    id: row.id,
    state: row.state,
    group: row.group,
    key: row.key,
    attempt: row.attempt,
    createdAt: row.createdAt,
    lastError: row.lastError,
  };
}
