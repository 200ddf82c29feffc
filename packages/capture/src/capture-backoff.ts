/**
 * The restart delay of spec §10.1 step 6: 1 s, doubling, at most 30 s. The reference never
 * reset it (§20.23), so one blip a day apart from the last still waited 30 s; here a run that
 * streamed for at least the cap starts the count again, which a flapping connection never does.
 */
export class CaptureBackoff {
  private delayMs: number;

  constructor(
    private readonly initialMs = 1_000,
    private readonly maxMs = 30_000,
  ) {
    this.delayMs = initialMs;
  }

  /** The delay before the next attempt; each call doubles the one after. */
  next(): number {
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, this.maxMs);
    return delay;
  }

  /** After a run that stayed healthy for `healthyMs`. */
  ranFor(healthyMs: number): void {
    if (healthyMs >= this.maxMs) this.delayMs = this.initialMs;
  }
}
