import type { Headers } from '../model.js';

/**
 * The operator's view of both tables (the dead-letter console): list rows by filter with keyset
 * pages, read one row, count by state, requeue dead inbox rows and discard dead rows. Lists are
 * newest first on (created_at, id), so a page is one index range and never a sort of the table.
 */
export type ConsoleTable = 'outbox' | 'inbox';

export interface ConsoleFilter {
  readonly ids: readonly string[] | null;
  readonly states: readonly string[] | null;
  /** Topics (outbox) or sources (inbox), exact. */
  readonly groups: readonly string[] | null;
  /** `created_at >= from`. */
  readonly from: Date | null;
  /** `created_at < to`. */
  readonly to: Date | null;
  /** A case-insensitive substring of `last_error`. */
  readonly q: string | null;
}

/** Where the next page starts: the last row's `created_at` as the database wrote it, and id. */
export interface ConsolePosition {
  readonly createdAt: string;
  readonly id: string;
}

export interface ConsoleRow {
  readonly id: string;
  readonly state: string;
  /** The topic (outbox) or source (inbox). */
  readonly group: string;
  /** The message key (outbox) or idempotency key (inbox). */
  readonly key: string | null;
  readonly attempt: number;
  readonly createdAt: Date;
  readonly lastError: string | null;
}

export interface ConsoleDetail extends ConsoleRow {
  /** The stored payload as JSON text. */
  readonly payload: string;
  readonly headers: Headers;
  readonly maxAttempts: number | null;
  readonly scheduledAt: Date | null;
  /** `updated_at` (outbox) or `processed_at` (inbox). */
  readonly updatedAt: Date | null;
  readonly claimedAt: Date | null;
  readonly leaseExpiresAt: Date | null;
  /** Event type (inbox) or aggregate type (outbox). */
  readonly type: string | null;
  readonly aggregateId: string | null;
  readonly correlationId: string | null;
  readonly consumption: string | null;
}

export interface ConsolePage {
  readonly rows: readonly ConsoleRow[];
  readonly next: ConsolePosition | null;
}

/** Dead rows of one topic (or source) that share a reason: `last_error` up to its first colon. */
export interface DeadGroup {
  readonly group: string;
  readonly reason: string;
  readonly count: number;
}

export interface TableStats {
  readonly byState: Readonly<Record<string, number>>;
  readonly dead: readonly DeadGroup[];
}

export interface ConsoleStore {
  list(
    table: ConsoleTable,
    filter: ConsoleFilter,
    limit: number,
    after: ConsolePosition | null,
  ): Promise<ConsolePage>;
  read(table: ConsoleTable, id: string): Promise<ConsoleDetail | null>;
  stats(table: ConsoleTable, maxGroups: number): Promise<TableStats>;
  /**
   * Spec §17.5's inbox requeue for at most `limit` dead rows that match: pending, attempt 0,
   * due now, no error, no claim. Rows in any other state never move, so a repeat moves nothing.
   */
  requeueInbox(filter: ConsoleFilter, limit: number): Promise<number>;
  /** Deletes at most `limit` dead rows that match; rows in any other state stay. */
  discardDead(table: ConsoleTable, filter: ConsoleFilter, limit: number): Promise<number>;
}
