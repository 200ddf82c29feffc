/**
 * The offset-commit rule of a Kafka source (spec §7.7), kept pure so every order of outcomes can
 * be tested without a broker.
 *
 * Records of one partition are taken in offset order and may be handled concurrently; each ends
 * `handled` (stored, duplicate, stored dead, or filtered) or `failed` (not stored). A partition's
 * committable offset is one past the last record of the unbroken run of handled records from the
 * front of what was taken: a record still in hand or failed ends the run, so no commit ever passes
 * a record that is not durably handled, whatever order the outcomes arrive in.
 *
 * The first failure of a partition stops it: nothing more is taken from it until the consumer has
 * sought back to the earliest failed offset (`seekTarget`, then `resume`). Records after that
 * offset are forgotten; whatever becomes of the ones still in hand changes nothing, since they are
 * fetched again from the seek (and the inbox deduplicates any that were stored).
 *
 * A rebalance (`reassign`) forgets every partition: kafkajs fetches each assigned partition again
 * from its last committed offset, and an outcome that arrives for a ticket of the old assignment
 * is ignored, so a partition revoked while records were in hand never has its offset moved by
 * them, here or under its new owner.
 */

export type RecordOutcome = 'handled' | 'failed';

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export interface PartitionOffset extends TopicPartition {
  readonly offset: bigint;
}

/** One taken record; `settle` takes it back. */
export interface Ticket extends PartitionOffset {
  readonly epoch: number;
}

interface Entry {
  readonly offset: bigint;
  outcome: RecordOutcome | null;
}

interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** Taken and not yet committed, in offset order. */
  entries: Entry[];
  /** The earliest failed offset; while set, nothing is taken. */
  failedAt: bigint | null;
  /** The seek to `failedAt` was made; records from it may be taken again. */
  sought: boolean;
  /** The last offset handed out by `commits()` (the next offset to read). */
  committed: bigint | null;
}

export class OffsetLedger {
  readonly #partitions = new Map<string, PartitionState>();
  #epoch = 0;

  /**
   * Takes one record for handling, or null when its partition is stopped by a failure (not yet
   * sought back) or the record was already taken. Records of a partition come in offset order.
   */
  take(topic: string, partition: number, offset: bigint): Ticket | null {
    const state = this.#state(topic, partition);
    if (state.failedAt !== null) {
      // A record past the failed one (the failed one was deleted meanwhile) resumes it too.
      if (!state.sought || offset < state.failedAt) return null;
      // The first record after the seek: the partition runs again from the failed offset.
      state.failedAt = null;
      state.sought = false;
    }
    const last = state.entries.at(-1);
    if (last !== undefined && offset <= last.offset) return null;
    if (state.committed !== null && offset < state.committed) return null;
    state.entries.push({ offset, outcome: null });
    return { topic, partition, offset, epoch: this.#epoch };
  }

  /** Records the outcome of a taken record; a ticket of an earlier assignment is ignored. */
  settle(ticket: Ticket, outcome: RecordOutcome): void {
    if (ticket.epoch !== this.#epoch) return;
    const state = this.#partitions.get(keyOf(ticket.topic, ticket.partition));
    if (state === undefined) return;
    const entry = entryAt(state.entries, ticket.offset);
    if (entry === undefined || entry.outcome !== null) return;
    entry.outcome = outcome;
    if (outcome === 'failed') {
      if (state.failedAt === null || ticket.offset < state.failedAt) {
        state.failedAt = ticket.offset;
        state.sought = false;
      }
      // Everything from the failed record on is fetched again after the seek.
      state.entries = state.entries.filter((candidate) => candidate.offset < ticket.offset);
    }
  }

  /** Whether a partition is stopped by a failure it has not sought back from yet. */
  stopped(topic: string, partition: number): boolean {
    const state = this.#partitions.get(keyOf(topic, partition));
    return state !== undefined && state.failedAt !== null && !state.sought;
  }

  /** Where the partition must seek to (the earliest failed offset), or null. */
  seekTarget(topic: string, partition: number): bigint | null {
    const state = this.#partitions.get(keyOf(topic, partition));
    return state === undefined || state.sought ? null : state.failedAt;
  }

  /** The seek to `seekTarget` was made: the partition takes records from that offset again. */
  resume(topic: string, partition: number): void {
    const state = this.#partitions.get(keyOf(topic, partition));
    if (state !== undefined && state.failedAt !== null) state.sought = true;
  }

  /**
   * The offsets to commit now: per partition, one past the unbroken handled run, when that moves
   * past the last commit. The run is dropped from the ledger (a commit that fails just replays:
   * the records come again and the inbox deduplicates them).
   */
  commits(): PartitionOffset[] {
    const commits: PartitionOffset[] = [];
    for (const state of this.#partitions.values()) {
      let run = 0;
      while (run < state.entries.length && state.entries[run]!.outcome === 'handled') run++;
      if (run === 0) continue;
      const next = state.entries[run - 1]!.offset + 1n;
      state.entries = state.entries.slice(run);
      if (state.committed !== null && next <= state.committed) continue;
      state.committed = next;
      commits.push({ topic: state.topic, partition: state.partition, offset: next });
    }
    return commits;
  }

  /** Records taken and not settled yet, over every partition. */
  get inHand(): number {
    let count = 0;
    for (const state of this.#partitions.values())
      for (const entry of state.entries) if (entry.outcome === null) count++;
    return count;
  }

  /** A rebalance: every partition starts over from its committed offset; old tickets are void. */
  reassign(): void {
    this.#epoch++;
    this.#partitions.clear();
  }

  #state(topic: string, partition: number): PartitionState {
    const key = keyOf(topic, partition);
    let state = this.#partitions.get(key);
    if (state === undefined) {
      state = { topic, partition, entries: [], failedAt: null, sought: false, committed: null };
      this.#partitions.set(key, state);
    }
    return state;
  }
}

/**
 * The entry of `offset`: entries are in offset order, and a batch holds hundreds of them, so a
 * search by halves instead of a scan per settled record.
 */
function entryAt(entries: readonly Entry[], offset: bigint): Entry | undefined {
  let low = 0;
  let high = entries.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const entry = entries[middle]!;
    if (entry.offset === offset) return entry;
    if (entry.offset < offset) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

function keyOf(topic: string, partition: number): string {
  return `${partition}:${topic}`;
}
