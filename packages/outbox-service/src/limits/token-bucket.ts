/**
 * A token bucket on a monotonic clock in milliseconds: it starts full with `burst` tokens, gains
 * `perSecond` tokens a second continuously, never holds more than `burst`, and each grant takes
 * one. Over any span of `t` ms it grants at most `burst + perSecond × t / 1000`.
 *
 * Tokens are counted as a fraction and refilled from the time of the last look, so a caller
 * that comes late loses nothing until the bucket is full: a timer that fires a few milliseconds
 * after the token was due still finds it, and the next one is due as if it had been on time.
 */
export class TokenBucket {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #nowMs: () => number;
  #tokens: number;
  #at: number;

  constructor(perSecond: number, burst: number, nowMs: () => number) {
    if (!(perSecond > 0) || !(burst >= 1)) {
      throw new RangeError(
        `A token bucket needs perSecond > 0 and burst ≥ 1, not ${perSecond}, ${burst}`,
      );
    }
    this.#perMs = perSecond / 1000;
    this.#burst = burst;
    this.#nowMs = nowMs;
    this.#tokens = burst;
    this.#at = nowMs();
  }

  /** Tokens in the bucket now, a fraction included. */
  get tokens(): number {
    this.#refill();
    return this.#tokens;
  }

  /** Takes one token when a whole one is there. */
  tryTake(): boolean {
    this.#refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Milliseconds until a whole token is there; 0 when one is. */
  msUntilToken(): number {
    this.#refill();
    return this.#tokens >= 1 ? 0 : (1 - this.#tokens) / this.#perMs;
  }

  /** Tokens that are in the bucket now or arrive within `ms`, the burst cap ignored past now. */
  grantableWithin(ms: number): number {
    return this.tokens + this.#perMs * ms;
  }

  #refill(): void {
    const now = this.#nowMs();
    if (now <= this.#at) return;
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#at) * this.#perMs);
    this.#at = now;
  }
}
