/**
 * The time budgets of one destination's publishes (an HTTP exchange, a RabbitMQ confirm, a Kafka
 * ack) with one timer, instead of a `setTimeout` and its clear per publish. Every entry of a
 * queue has the same budget (the destination's `timeoutMs`), so entries expire in the order they
 * were added: a doubly linked list in that order, an O(1) removal when a publish ends in time,
 * and one timer armed for the oldest entry. When that entry ends first, the timer is not moved;
 * it fires at the old time, finds nothing expired, and is armed again for the new oldest entry,
 * so a queue under steady load costs about one timer per `timeoutMs`, not one per publish.
 */
/** One request's place in a queue; the request's own object extends it (no closure per request). */
export abstract class DeadlineEntry {
  /** performance.now() by which the entry expires. */
  dueAt = 0;
  prev: DeadlineEntry | null = null;
  next: DeadlineEntry | null = null;
  queued = false;

  /** The budget ran out (the entry is already out of the queue). */
  abstract expire(): void;
}

export class DeadlineQueue<E extends DeadlineEntry = DeadlineEntry> {
  #head: DeadlineEntry | null = null;
  #tail: DeadlineEntry | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** When the armed timer fires (Infinity when none is armed). */
  #timerAt = Number.POSITIVE_INFINITY;

  private readonly now: () => number;
  private readonly unref: boolean;

  /**
   * `unref`: the timer never holds the process up on its own (a broker's connection does while
   * publishes wait); either way an empty queue keeps no timer. `now`: a test's clock.
   */
  constructor(
    readonly budgetMs: number,
    options: { readonly now?: () => number; readonly unref?: boolean } = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.unref = options.unref ?? false;
  }

  /** Starts `entry`'s budget now; it must not be queued already. */
  add(entry: E): void {
    entry.dueAt = this.now() + this.budgetMs;
    entry.prev = this.#tail;
    entry.next = null;
    if (this.#tail === null) this.#head = entry;
    else this.#tail.next = entry;
    this.#tail = entry;
    entry.queued = true;
    if (this.#timer === null) this.arm(entry.dueAt);
  }

  /** The request ended within its budget; a no-op when the entry is not queued. */
  remove(entry: E): void {
    if (!entry.queued) return;
    entry.queued = false;
    if (entry.prev === null) this.#head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === null) this.#tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = null;
    entry.next = null;
    // An empty queue keeps no timer, so it never holds the process up.
    if (this.#head === null) this.disarm();
  }

  /** Entries waiting (for tests and the shutdown count). */
  get size(): number {
    let count = 0;
    for (let entry = this.#head; entry !== null; entry = entry.next) count++;
    return count;
  }

  /** The entries waiting, oldest first, as a copy: ending one while iterating is safe. */
  entries(): E[] {
    const entries: E[] = [];
    for (let entry = this.#head; entry !== null; entry = entry.next) entries.push(entry as E);
    return entries;
  }

  private arm(at: number): void {
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.fire(), Math.max(0, at - this.now()));
    if (this.unref) this.#timer.unref();
  }

  private disarm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  private fire(): void {
    this.#timer = null;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.now();
    // An expiry may add or remove entries (a retry, a settled request): take each head afresh.
    for (let entry = this.#head; entry !== null && entry.dueAt <= now; entry = this.#head) {
      this.remove(entry as E);
      entry.expire();
    }
    if (this.#head !== null && this.#timer === null) this.arm(this.#head.dueAt);
  }

  /** Whether a timer is armed (for tests). */
  get armed(): boolean {
    return this.#timerAt !== Number.POSITIVE_INFINITY;
  }
}
