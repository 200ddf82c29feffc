import type { OutboxCompletion, OutboxStore } from '@queuebox/core';

interface Waiting {
  readonly completion: OutboxCompletion;
  readonly resolve: (held: boolean) => void;
  readonly reject: (error: unknown) => void;
  /** performance.now() by which this completion must be on its way (submit + its linger). */
  readonly due: number;
}

export interface CompletionWriterOptions {
  /** Upper bound of one call, so a statement never grows without limit. */
  readonly maxBatch?: number;
  /**
   * Whether more completions are about to arrive (the poller: a publish is in flight). Only
   * then does a completion wait up to `lingerMs` for company; otherwise it goes out at once.
   */
  readonly moreExpected?: () => boolean;
  /**
   * Longest wait for company of a completion whose row has a key: the key's next row becomes
   * claimable only once this write commits, so the wait is short.
   */
  readonly lingerMs?: number;
  /**
   * Longest wait of a completion whose row has no key (no row waits for it); defaults to
   * `lingerMs`.
   */
  readonly unkeyedLingerMs?: number;
  /** Queued completions that go out at once, linger or not. */
  readonly lingerRows?: number;
}

const DEFAULT_MAX_BATCH = 500;

/**
 * Group commit of the fenced terminal writes (sent / retry / dead). One `complete` call is in
 * flight at a time; completions that arrive meanwhile queue up and go together in the next call.
 *
 * Every call is a synchronous commit, i.e. a WAL flush, and costs both processes a round trip, so
 * under load the writer waits for company: while publishes are in flight (`moreExpected`) a
 * completion waits up to `lingerMs` or until `lingerRows` are queued. Going out as soon as the
 * previous call answered made small batches and a commit for every few rows. The wait costs no
 * throughput (the publish slot is free before the write, see DeliverySlots); it delays only the
 * moment the next row of the same key becomes claimable, and a lone message (nothing else
 * publishing) never waits: it goes out after the current microtask, so the completions of one
 * event-loop turn still share a call.
 *
 * A row without a key holds nothing back, so its completion may wait longer (`unkeyedLingerMs`):
 * a broker whose confirms slow down with any CPU the database spends beside it delivers more
 * with a longer wait, with fewer commits for the same rows (docs/benchmarks.md). A batch goes out by the earliest due time
 * among its completions, so one keyed row in it keeps the short wait.
 *
 * A failing call rejects every completion of that call: each task then runs its own error path,
 * as it would have after a failed single-row write.
 */
export class CompletionWriter {
  private queue: Waiting[] = [];
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private timerDue = Number.POSITIVE_INFINITY;
  /** The earliest `due` in the queue (Infinity when empty). */
  private earliestDue = Number.POSITIVE_INFINITY;
  private readonly maxBatch: number;
  private readonly moreExpected: () => boolean;
  private readonly lingerMs: number;
  private readonly unkeyedLingerMs: number;
  private readonly lingerRows: number;

  constructor(
    private readonly store: Pick<OutboxStore, 'complete'>,
    options: CompletionWriterOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    this.moreExpected = options.moreExpected ?? (() => false);
    this.lingerMs = options.lingerMs ?? 0;
    this.unkeyedLingerMs = options.unkeyedLingerMs ?? this.lingerMs;
    this.lingerRows = Math.min(options.lingerRows ?? this.maxBatch, this.maxBatch);
  }

  /**
   * Resolves true when the fence held and the write happened, false when the claim was lost.
   * `keyed`: the row has a key, so the key's next row waits for this write.
   */
  submit(completion: OutboxCompletion, keyed = true): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const due = performance.now() + (keyed ? this.lingerMs : this.unkeyedLingerMs);
      if (due < this.earliestDue) this.earliestDue = due;
      this.queue.push({ completion, resolve, reject, due });
      this.schedule();
    });
  }

  /** Writes what is queued without lingering; resolves when everything submitted is written. */
  async drain(): Promise<void> {
    this.clearTimer();
    if (!this.flushing && this.queue.length > 0) this.flushing = this.flush();
    while (this.flushing) await this.flushing;
  }

  /** Starts a call now, or arms the linger timer; a running call reschedules when it ends. */
  private schedule(): void {
    if (this.flushing || this.queue.length === 0) return;
    const left = this.earliestDue - performance.now();
    if (this.queue.length >= this.lingerRows || left <= 0 || !this.moreExpected()) {
      this.clearTimer();
      this.flushing = this.flush();
      return;
    }
    // A keyed completion queued behind unkeyed ones moves the due time forward.
    if (this.timer !== null && this.timerDue <= this.earliestDue) return;
    this.clearTimer();
    this.timerDue = this.earliestDue;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.flushing && this.queue.length > 0) this.flushing = this.flush();
    }, left);
  }

  private async flush(): Promise<void> {
    // Completions submitted in this event-loop turn join the call.
    await Promise.resolve();
    const batch = this.queue.splice(0, this.maxBatch);
    this.earliestDue = this.queue.reduce(
      (due, w) => Math.min(due, w.due),
      Number.POSITIVE_INFINITY,
    );
    try {
      const held = await this.store.complete(batch.map((w) => w.completion));
      for (const w of batch) w.resolve(held.has(w.completion.fence.id));
    } catch (error: unknown) {
      for (const w of batch) w.reject(error);
    } finally {
      this.flushing = null;
      this.schedule();
    }
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
