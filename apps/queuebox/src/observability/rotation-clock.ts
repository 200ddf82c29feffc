/**
 * The clock of a Micrometer-style time window: `length` slots over `expiryMs`, one slot turned
 * over every `expiryMs / length`. Owners (TimeWindowMax, TimeWindowHistogram) ask how many turns
 * are due and apply their own turn; a whole window gone by counts as `length` turns.
 */
export class RotationClock {
  readonly length: number;
  private readonly everyMs: number;
  private lastMs: number;

  constructor(
    private readonly now: () => number,
    private readonly expiryMs: number,
    length: number,
  ) {
    this.length = Math.max(1, Math.floor(length));
    this.everyMs = Math.max(1, expiryMs / this.length);
    this.lastMs = now();
  }

  /** Turns due since the last call, 0..length. */
  due(): number {
    let elapsed = this.now() - this.lastMs;
    if (elapsed < this.everyMs) return 0;
    if (elapsed >= this.expiryMs) {
      this.lastMs = this.now() - (elapsed % this.everyMs);
      return this.length;
    }
    let turns = 0;
    while (elapsed >= this.everyMs && turns < this.length) {
      elapsed -= this.everyMs;
      this.lastMs += this.everyMs;
      turns++;
    }
    return turns;
  }
}
