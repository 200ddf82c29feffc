/**
 * At most `maxPollRecords` records in hand at once over every partition of a source (spec §7.7:
 * what one poll returns is what the reference had in hand). Records taken together are handled
 * together, so the inbox store groups their inserts into one commit.
 */
export class InHandSlots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    this.#free = size;
  }

  /** Takes a free slot at once, or returns false (then `acquire` waits for one). */
  tryAcquire(): boolean {
    if (this.#free === 0) return false;
    this.#free--;
    return true;
  }

  /** Resolves once a slot is free; `release` gives it back. */
  acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#free = Math.min(this.size, this.#free + 1);
  }
}
