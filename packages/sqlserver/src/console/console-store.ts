import type {
  Clock,
  ConsoleDetail,
  ConsoleFilter,
  ConsolePage,
  ConsolePosition,
  ConsoleStore,
  ConsoleTable,
  Headers,
  TableStats,
} from '@queuebox/core';
import type { SqlServerPool } from '../connection/pool.js';
import { sqlServerError } from '../classify-error.js';
import type { TableNames } from '../schema/table-names.js';
import type { Statement } from '../sql/statement.js';
import { consoleStatements } from './console-statements.js';

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
  readonly headers: string | null;
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
      const { rows } = await run<ListRow>('list rows', s.list(table, filter, limit + 1, after));
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        rows: page.map((row) => ({
          id: lower(row.id),
          state: row.state,
          group: row.group,
          key: row.key,
          attempt: row.attempt,
          createdAt: row.createdAt,
          lastError: row.lastError,
        })),
        next: rows.length > limit && last ? { createdAt: last.position, id: lower(last.id) } : null,
      };
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
      return {
        byState: Object.fromEntries(states.rows.map((r) => [r.state, Number(r.count)])),
        dead: dead.rows.map((r) => ({ group: r.group, reason: r.reason, count: Number(r.count) })),
      };
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
