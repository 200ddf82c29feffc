/**
 * Groups concurrent calls into one statement. While a statement is in flight, new calls queue;
 * when it ends, everything queued goes out as the next statement. Under load a statement
 * carries every caller that arrived during the previous one (so the ingestion rate is bounded
 * by rows per statement, not by statements per second); an idle caller waits for nothing but
 * the end of the current event-loop turn.
 *
 * Exactly one statement is in flight at a time, on purpose: the next group is sent only after
 * the previous one committed, so a caller that stores A and then B without waiting for A still
 * gets A's row first (scheduled_at follows insert order), and two groups of this process can
 * never deadlock on each other's unique-index entries.
 *
 * In core because both database adapters group their inbox inserts the same way; it holds no
 * I/O (setImmediate is the event loop's, not a driver's).
 */
export type Settled<R> =
  { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

/** Runs one group; returns one outcome per item, in item order. */
export type GroupRunner<T, R> = (items: readonly T[]) => Promise<readonly Settled<R>[]>;

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

export class StatementGroup<T, R> {
  private queue: Waiting<T, R>[] = [];
  private scheduled = false;
  private running = false;

  constructor(
    private readonly run: GroupRunner<T, R>,
    private readonly maxItems: number,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    // setImmediate, not a microtask: requests whose I/O completed in the same turn of the
    // event loop all get queued before the first statement leaves.
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, this.maxItems);
        let outcomes: readonly Settled<R>[];
        try {
          outcomes = await this.run(group.map((w) => w.item));
        } catch (error: unknown) {
          outcomes = group.map(() => ({ ok: false, error }));
        }
        // Callers continue in microtasks, after `running` is cleared below; a call they make
        // then schedules the next drain itself.
        group.forEach((waiting, index) => {
          const outcome = outcomes[index];
          if (outcome === undefined) {
            waiting.reject(new Error('The store group returned no outcome for a call.'));
          } else if (outcome.ok) waiting.resolve(outcome.value);
          else waiting.reject(outcome.error);
        });
      }
    } finally {
      this.running = false;
    }
  }
}
