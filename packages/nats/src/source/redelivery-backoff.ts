/**
 * The delay a message the inbox could not store asks for when it is nak'ed (spec §7.8 says "nak";
 * an immediate redelivery turns a database outage into a hot loop). The delay doubles per round
 * of `perRound` consecutive failures (a batch fails together in an outage), from 100 ms up to
 * 5 s, and one stored message resets it. The server holds the message for the delay, so the
 * fetch loop goes on with other messages meanwhile.
 */
export class RedeliveryBackoff {
  #failures = 0;

  constructor(
    private readonly perRound: number,
    private readonly baseMs = 100,
    private readonly maxMs = 5_000,
  ) {}

  /** Records one failure and returns its nak delay. */
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
