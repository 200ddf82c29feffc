import {
  sleep,
  QueueBoxError,
  RETAINED_STATES,
  type RetentionPolicyConfig,
  type RetentionStore,
  type RetentionTable,
} from '@queuebox/core';

/** Pause between two full delete batches, so a large backlog does not hog the database. */
export const BATCH_PAUSE_MS = 10;

/**
 * One cleanup run of one table (spec §17.4): per terminal state, delete in batches of
 * `batchSize` while a batch comes back full, pausing 10 ms between batches. AGE cuts at app-now −
 * maxAge (outbox on `updated_at`, inbox on `created_at`); COUNT keeps the `maxCount` newest rows
 * of EACH state, so `maxCount: 100000` keeps up to 200 000 rows. Returns the rows deleted so far
 * when `signal` aborts between batches.
 */
export interface CleanOptions {
  /** Stops between batches. */
  readonly signal?: AbortSignal;
  /** Called after every batch, so rows deleted before a failure are still counted. */
  readonly onDeleted?: (count: number) => void;
}

export async function cleanTable(
  store: RetentionStore,
  table: RetentionTable,
  policy: RetentionPolicyConfig,
  now: Date,
  options: CleanOptions = {},
): Promise<number> {
  const { signal, onDeleted } = options;
  const batch = policy.batchSize;
  if (policy.policy === 'AGE') {
    const cutoff = new Date(now.getTime() - requireValue(policy.maxAgeMs, table, 'maxAge'));
    let deleted = 0;
    for (const state of RETAINED_STATES[table]) {
      deleted += await inBatches(batch, signal, onDeleted, () =>
        store.deleteOlderThan(table, state, cutoff, batch),
      );
    }
    return deleted;
  }
  if (policy.policy === 'COUNT') {
    // Startup validation rejects this; reaching it anyway is a wiring bug, not a quiet no-op.
    if (table !== 'outbox')
      throw new QueueBoxError('config_invalid', 'The inbox has no COUNT retention policy');
    const keep = requireValue(policy.maxCount, table, 'maxCount');
    let deleted = 0;
    for (const state of RETAINED_STATES.outbox) {
      deleted += await inBatches(batch, signal, onDeleted, () =>
        store.deleteBeyondCount('outbox', state, keep, batch),
      );
    }
    return deleted;
  }
  return 0;
}

async function inBatches(
  batchSize: number,
  signal: AbortSignal | undefined,
  onDeleted: ((count: number) => void) | undefined,
  deleteBatch: () => Promise<number>,
): Promise<number> {
  let total = 0;
  while (!signal?.aborted) {
    const deleted = await deleteBatch();
    total += deleted;
    onDeleted?.(deleted);
    if (deleted < batchSize) break;
    await sleep(BATCH_PAUSE_MS, signal);
  }
  return total;
}

function requireValue(value: number | null, table: RetentionTable, key: string): number {
  if (value === null) {
    throw new QueueBoxError(
      'config_invalid',
      `'retention.${table}.${key}' is required by the ${table} retention policy`,
    );
  }
  return value;
}
