/**
 * The console store's dialect-neutral half: the row shapes its list and read statements select
 * (each dialect's SQL names its columns so), a page cut from one row more than asked (which tells
 * whether a next page exists without a count), and the stats from the per-state and dead-group
 * counts. Each dialect keeps its SQL, its driver calls and how it reads a count or an id.
 */
import type { ConsoleDetail, ConsolePage, ConsoleRow, TableStats } from '../ports/console-store.js';

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
 * driver's id text (SQL Server returns uniqueidentifiers upper-case).
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
