/**
 * The console store's dialect-neutral half: the row shapes its list and read statements select
 * (each dialect's SQL names its columns so), a page cut from one row more than asked (which tells
 * whether a next page exists without a count), and the stats from the per-state and dead-group
 * counts. Each dialect keeps its SQL, its driver calls and how it reads a count or an id.
 */
import type {
  ConsoleDetail,
  ConsolePage,
  ConsoleRow,
  ConsoleTable,
  TableStats,
} from '../ports/console-store.js';
import type { TableNames } from './table-names.js';

/**
 * The columns the console reads from either table, by role, already quoted: the outbox's topic
 * and the inbox's source are both the `group`, the outbox's key and the inbox's idempotency key
 * both the `key`.
 */
export interface ConsoleShape {
  readonly table: string;
  readonly id: string;
  readonly state: string;
  readonly group: string;
  readonly key: string;
  readonly attempt: string;
  readonly createdAt: string;
  readonly lastError: string;
}

export function consoleShape(tables: TableNames, table: ConsoleTable): ConsoleShape {
  if (table === 'outbox') {
    const c = tables.outboxColumns;
    return {
      table: tables.outbox,
      id: c.id,
      state: c.state,
      group: c.topic,
      key: c.key,
      attempt: c.attempt,
      createdAt: c.createdAt,
      lastError: c.lastError,
    };
  }
  const c = tables.inboxColumns;
  return {
    table: tables.inbox,
    id: c.id,
    state: c.state,
    group: c.source,
    key: c.idempotencyKey,
    attempt: c.attempt,
    createdAt: c.createdAt,
    lastError: c.lastError,
  };
}

/** A list statement's row: the console row and the position the next page starts after. */
export interface ConsoleListRow extends ConsoleRow {
  readonly position: string;
}

/** A read statement's row; `H` is how the driver returns the headers (an object, or JSON text). */
export type ConsoleDetailRow<H> = Omit<ConsoleDetail, 'headers'> & { readonly headers: H };

export function consoleRow(row: Omit<ConsoleListRow, 'position'>, id = row.id): ConsoleRow {
  return {
    id,
    state: row.state,
    group: row.group,
    key: row.key,
    attempt: row.attempt,
    createdAt: row.createdAt,
    lastError: row.lastError,
  };
}

/**
 * The page of `limit` rows from a list statement run with `limit + 1`. `id` normalizes the
 * driver's id text (a driver may return uuids upper-case).
 */
export function consolePage(
  rows: readonly ConsoleListRow[],
  limit: number,
  id: (text: string) => string = (text) => text,
): ConsolePage {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page.map((row) => consoleRow(row, id(row.id))),
    next: rows.length > limit && last ? { createdAt: last.position, id: id(last.id) } : null,
  };
}

export function consoleStats<C>(
  states: readonly { state: string; count: C }[],
  dead: readonly { group: string; reason: string; count: C }[],
  toCount: (count: C) => number,
): TableStats {
  return {
    byState: Object.fromEntries(states.map((r) => [r.state, toCount(r.count)])),
    dead: dead.map((r) => ({ group: r.group, reason: r.reason, count: toCount(r.count) })),
  };
}
