/**
 * How long a delivery the inbox could not store waits before it is requeued (spec §7.6 says
 * "nack with requeue"; requeued at once, a database outage turns into a hot loop of redeliveries).
 * The wait holds the delivery's prefetch slot, so while the store fails the consumer takes at
 * most `prefetchCount` deliveries per wait. The wait doubles per round of `perRound` consecutive
 * failures (the deliveries in hand fail together in an outage) up to `maxMs`, and one success
 * resets it.
 */
export class RetryBackoff {
  #failures = 0;

  constructor(
    private readonly perRound: number,
    private readonly baseMs = 100,
    private readonly maxMs = 5_000,
  ) {}

  /** Records one failure and returns the wait before its requeue. */
  next(): number {
    const round = Math.floor(this.#failures / Math.max(1, this.perRound));
    this.#failures += 1;
    return Math.min(this.maxMs, this.baseMs * 2 ** Math.min(round, 20));
  }

  reset(): void {
    this.#failures = 0;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
