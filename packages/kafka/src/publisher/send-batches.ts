/**
 * How the rows waiting for one destination are cut into `sendBatch` calls. kafkajs's idempotent
 * producer assigns sequence numbers per partition as a request is built and takes them back when
 * it fails; two sends in flight at once can then reuse or skip a sequence, and the broker answers
 * OUT_OF_ORDER_SEQUENCE_NUMBER (kafkajs issues #1115, #598). So a destination has one send in
 * flight at a time, and every row that arrives meanwhile goes out with the next one: under the
 * poller's concurrency the rows in flight to one destination share one request per round trip.
 *
 * A batch is bounded by a record count and by bytes, so it stays under the broker's default
 * `message.max.bytes` (1 MiB for a record batch) even when every row lands on one partition; a
 * single record larger than the bound goes alone, and the broker judges it.
 */

export const MAX_BATCH_RECORDS = 500;
export const MAX_BATCH_BYTES = 900_000;

export interface Batchable {
  readonly topic: string;
  readonly bytes: number;
  /** Settled already (timed out, aborted): it is dropped, never sent. */
  readonly settled: boolean;
}

/**
 * The next batch from the front of `queue`, in arrival order, and what stays queued. Settled
 * entries are dropped from both.
 */
export function takeBatch<T extends Batchable>(
  queue: readonly T[],
  maxRecords = MAX_BATCH_RECORDS,
  maxBytes = MAX_BATCH_BYTES,
): { batch: T[]; rest: T[] } {
  const batch: T[] = [];
  const rest: T[] = [];
  let bytes = 0;
  for (const entry of queue) {
    if (entry.settled) continue;
    const fits =
      rest.length === 0 &&
      batch.length < maxRecords &&
      (batch.length === 0 || bytes + entry.bytes <= maxBytes);
    if (fits) {
      batch.push(entry);
      bytes += entry.bytes;
    } else {
      rest.push(entry);
    }
  }
  return { batch, rest };
}

/** The entries by topic, topics in order of first appearance, entries in arrival order. */
export function groupByTopic<T extends Batchable>(entries: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const entry of entries) {
    let group = groups.get(entry.topic);
    if (group === undefined) groups.set(entry.topic, (group = []));
    group.push(entry);
  }
  return [...groups.values()];
}
