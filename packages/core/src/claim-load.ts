import type { DeliveryLoad } from './ports/capture.js';

export interface ClaimLoadOptions {
  /** Rows a window must reach to count as full: `outbox.batchSize`. */
  readonly rowsPerWindow: number;
  /** The window: 100 ms (the default poll interval). */
  readonly windowMs?: number;
  /** Consecutive full windows after which the poller is busy: 3. */
  readonly busyAfterWindows?: number;
  /** Time without a full window after which it is not busy any more: 1000 ms. */
  readonly idleAfterMs?: number;
  /** Tests drive the clock. */
  readonly now?: () => number;
}

export const CLAIM_LOAD_WINDOW_MS = 100;
export const CLAIM_LOAD_BUSY_AFTER_WINDOWS = 3;
export const CLAIM_LOAD_IDLE_AFTER_MS = 1_000;

/**
 * The outbox poller's load, counted in rows claimed per window of 100 ms. The poller is busy
 * once `rowsPerWindow` (a full batch) were claimed in each of 3 consecutive windows: at that
 * rate (1,000 rows/s at the defaults) a poller polling every 100 ms would find a full batch at
 * every poll and loop without waiting, so a wake tells it nothing. It stays busy until no
 * window has been full for a second. The two bounds are hysteresis: a single large insert does
 * not make the poller busy, and a rate near the bound changes the state at most about once a
 * second, since each change costs capture a new feed (a new replication slot, on a database that
 * uses one).
 *
 * Counted the same way whether capture streams or not: rows claimed per time is the rate at
 * which rows become due (or, under a backlog, the rate of delivery), whoever woke the poller.
 */
export class ClaimLoad implements DeliveryLoad {
  private readonly windowMs: number;
  private readonly busyAfterWindows: number;
  private readonly idleAfterMs: number;
  private readonly now: () => number;
  private readonly listeners = new Set<(busy: boolean) => void>();
  private window = Number.NEGATIVE_INFINITY;
  private rows = 0;
  /** Full windows in a row, the current one not counted. */
  private fullStreak = 0;
  /** End of the last full window. */
  private lastFullEndMs = Number.NEGATIVE_INFINITY;
  private isBusy = false;

  constructor(private readonly options: ClaimLoadOptions) {
    this.windowMs = options.windowMs ?? CLAIM_LOAD_WINDOW_MS;
    this.busyAfterWindows = options.busyAfterWindows ?? CLAIM_LOAD_BUSY_AFTER_WINDOWS;
    this.idleAfterMs = options.idleAfterMs ?? CLAIM_LOAD_IDLE_AFTER_MS;
    this.now = options.now ?? (() => performance.now());
  }

  get busy(): boolean {
    this.settle(this.now());
    return this.isBusy;
  }

  onChange(listener: (busy: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One claim's result: `rows` claimed (0 for an empty claim, which counts as a look). */
  record(rows: number): void {
    const now = this.now();
    this.roll(now);
    this.rows += rows;
    if (this.rows >= this.options.rowsPerWindow) {
      this.lastFullEndMs = (this.window + 1) * this.windowMs;
      // The window that completes the streak counts as soon as it is full.
      if (this.fullStreak + 1 >= this.busyAfterWindows) this.set(true);
    }
    this.settle(now);
  }

  /** Closes the windows that ended before `now`. */
  private roll(now: number): void {
    const window = Math.floor(now / this.windowMs);
    if (window === this.window) return;
    const full = this.rows >= this.options.rowsPerWindow;
    // A window skipped entirely claimed nothing, so it breaks the streak.
    this.fullStreak = full && window === this.window + 1 ? this.fullStreak + 1 : 0;
    this.window = window;
    this.rows = 0;
  }

  private settle(now: number): void {
    if (this.isBusy && now - this.lastFullEndMs >= this.idleAfterMs) this.set(false);
  }

  private set(busy: boolean): void {
    if (this.isBusy === busy) return;
    this.isBusy = busy;
    for (const listener of this.listeners) listener(busy);
  }
}
