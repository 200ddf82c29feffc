/**
 * How many messages a broker source asks for at once (a prefetch, a fetch's batch) so that
 * the bodies it holds stay within a byte budget as well as the configured count: the count, as
 * long as messages are small; fewer when they are large, at least one. The sizes come from the
 * messages received: after a large one the window shrinks at once, and it grows back only after
 * a whole window's worth of smaller messages, so a mix of sizes does not make it swing.
 */
export class InHandWindow {
  readonly #countLimit: number;
  readonly #bytesLimit: number;
  /** The largest body of the current estimate (0: none seen yet). */
  #largest = 0;
  /** The largest body since the estimate last changed, and how many came since. */
  #recentLargest = 0;
  #recentCount = 0;

  /**
   * @param countLimit the configured count (`prefetchCount`, `batchSize`)
   * @param bytesLimit the body bytes to hold at most (the handler's `inHandBytes`); undefined or
   *   not positive: the count alone
   */
  constructor(countLimit: number, bytesLimit: number | undefined) {
    this.#countLimit = Math.max(1, Math.floor(countLimit));
    this.#bytesLimit = bytesLimit !== undefined && bytesLimit > 0 ? bytesLimit : Infinity;
  }

  /** Records one received body's size. */
  observe(bytes: number): void {
    if (bytes >= this.#largest) {
      this.#largest = bytes;
      this.#recentLargest = 0;
      this.#recentCount = 0;
      return;
    }
    this.#recentLargest = Math.max(this.#recentLargest, bytes);
    this.#recentCount += 1;
    if (this.#recentCount >= this.size()) {
      this.#largest = this.#recentLargest;
      this.#recentLargest = 0;
      this.#recentCount = 0;
    }
  }

  /** The bytes a full window of the largest recent body holds (0 while none was seen). */
  bytes(): number {
    return this.size() * this.#largest;
  }

  /** Messages to ask for now: the count limit, or fewer so they fit the byte budget; ≥ 1. */
  size(): number {
    if (this.#largest === 0 || this.#bytesLimit === Infinity) return this.#countLimit;
    const fit = Math.floor(this.#bytesLimit / this.#largest);
    return Math.min(this.#countLimit, Math.max(1, fit));
  }
}
