import type { Clock } from '@queuebox/core';

export const RATE_LIMIT_PERIOD_MS = 60_000;

export type RateDecision =
  { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

/**
 * One token bucket per source (spec §7.5, §16.1): capacity N, and the full N again once a
 * period has passed since the last refill. It protects the database, not one caller from
 * another, so all callers of a source share it.
 */
export class TokenBucket {
  readonly #capacity: number;
  readonly #periodMs: number;
  readonly #clock: Clock;
  #tokens: number;
  #lastRefillMs: number;

  constructor(capacity: number, clock: Clock, periodMs = RATE_LIMIT_PERIOD_MS) {
    this.#capacity = capacity;
    this.#periodMs = periodMs;
    this.#clock = clock;
    this.#tokens = capacity;
    this.#lastRefillMs = clock.now().getTime();
  }

  tryTake(): RateDecision {
    const now = this.#clock.now().getTime();
    if (now - this.#lastRefillMs >= this.#periodMs) {
      this.#tokens = this.#capacity;
      this.#lastRefillMs = now;
    }
    if (this.#tokens > 0) {
      this.#tokens--;
      return { ok: true };
    }
    // Whole seconds, rounded up: a sender that waits exactly that long finds a full bucket.
    const waitMs = this.#lastRefillMs + this.#periodMs - now;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}
