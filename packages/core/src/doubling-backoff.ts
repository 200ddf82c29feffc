/**
 * The wait of a broker source before it takes up again what failed: a delivery the inbox could
 * not store (requeued, nak'ed or refetched at once, a database outage turns into a hot loop of
 * redeliveries) or a lost connection (reconnecting at once hammers a broker that is down).
 *
 * The wait doubles per round of `perRound` consecutive failures, from `baseMs` up to `maxMs`, and
 * one success resets it. A round is the deliveries in hand, which fail together in an outage: with
 * `perRound` set to the prefetch or batch size, one outage doubles the wait once per batch rather
 * than once per message. A reconnect loop fails one attempt at a time, so its round is 1.
 */
export class DoublingBackoff {
  #failures = 0;

  constructor(
    private readonly perRound: number,
    private readonly baseMs = 100,
    private readonly maxMs = 5_000,
  ) {}

  /** Records one failure and returns the wait it asks for. */
  next(): number {
    const round = Math.floor(this.#failures / Math.max(1, this.perRound));
    this.#failures += 1;
    return Math.min(this.maxMs, this.baseMs * 2 ** Math.min(round, 20));
  }

  reset(): void {
    this.#failures = 0;
  }
}
