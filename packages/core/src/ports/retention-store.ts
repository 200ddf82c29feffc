/**
 * Deletes terminal rows for the retention service (spec §17.4). Only terminal states can be
 * named, and an adapter refuses any other state at run time too: retention must never delete a
 * row that still waits for delivery.
 */
export type RetentionTable = 'outbox' | 'inbox';

/** The states retention may delete, per table. */
export type RetainedState<T extends RetentionTable> = T extends 'outbox'
  ? 'sent' | 'dead'
  : 'processed' | 'dead';

export const RETAINED_STATES: { readonly [T in RetentionTable]: readonly RetainedState<T>[] } = {
  outbox: ['sent', 'dead'],
  inbox: ['processed', 'dead'],
};

export interface RetentionStore {
  /**
   * One batch of the AGE policy: selects up to `batchSize` rows in `state` older than `cutoff`
   * (outbox: `updated_at`, inbox: `created_at`, which is the receipt time) and deletes them,
   * re-checking the state. Returns how many were deleted; fewer than `batchSize` means done.
   */
  deleteOlderThan<T extends RetentionTable>(
    table: T,
    state: RetainedState<T>,
    cutoff: Date,
    batchSize: number,
  ): Promise<number>;
  /**
   * One batch of the COUNT policy (outbox only; the inbox has none): keeps the `keep` most recent
   * rows in `state` by `updated_at` DESC and deletes up to `batchSize` of the rest.
   */
  deleteBeyondCount(
    table: 'outbox',
    state: RetainedState<'outbox'>,
    keep: number,
    batchSize: number,
  ): Promise<number>;
}
