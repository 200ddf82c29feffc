import { QueueBoxError } from '../errors.js';
import {
  RETAINED_STATES,
  type RetainedState,
  type RetentionStore,
  type RetentionTable,
} from '../ports/retention-store.js';

/** The dialect's two batch deletes (spec §17.4); each is one statement, its values bound. */
export interface RetentionDeletes {
  olderThan(table: RetentionTable, state: string, cutoff: Date, batchSize: number): Promise<number>;
  beyondCount(state: string, keep: number, batchSize: number): Promise<number>;
}

/** The largest value the dialects bind as an INTEGER parameter. */
const MAX_INT = 2 ** 31 - 1;

/**
 * The RetentionStore port over a dialect's deletes: the checks every dialect needs before its
 * SQL runs (terminal states only, whole positive batch sizes, COUNT only on the outbox).
 * Cutoffs arrive already computed by the caller.
 */
export function createRetentionStore(deletes: RetentionDeletes): RetentionStore {
  return {
    async deleteOlderThan<T extends RetentionTable>(
      table: T,
      state: RetainedState<T>,
      cutoff: Date,
      batchSize: number,
    ): Promise<number> {
      requireTerminal(table, state);
      requirePositive('batchSize', batchSize);
      return deletes.olderThan(table, state, cutoff, batchSize);
    },

    async deleteBeyondCount(
      table: 'outbox',
      state: RetainedState<'outbox'>,
      keep: number,
      batchSize: number,
    ): Promise<number> {
      if (table !== 'outbox') {
        throw new QueueBoxError('internal', 'The inbox has no COUNT retention policy.');
      }
      requireTerminal(table, state);
      requirePositive('batchSize', batchSize);
      if (!Number.isInteger(keep) || keep < 0 || keep > MAX_INT) {
        throw new QueueBoxError(
          'internal',
          `Retention must keep a whole number of rows >= 0, not ${keep}.`,
        );
      }
      return deletes.beyondCount(state, keep, batchSize);
    },
  };
}

/** Checked at run time as well as by the types: a cast or a JS caller must not reach pending rows. */
function requireTerminal(table: RetentionTable, state: string): void {
  const allowed = RETAINED_STATES[table] as readonly string[];
  if (!allowed.includes(state)) {
    throw new QueueBoxError(
      'internal',
      `Retention refuses to delete ${table} rows in state '${state}'; it deletes only ${allowed.join(' and ')} rows.`,
    );
  }
}

function requirePositive(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0 || value > MAX_INT) {
    throw new QueueBoxError('internal', `Retention needs a positive whole ${name}, not ${value}.`);
  }
}
