import type { DestinationConfig, DestinationRateLimit, OutboxConfig } from '@queuebox/core';
import type { DestinationGate, DestinationGates } from '../gate/destination-gates.js';
import { maxClaimRows } from '../poller/outbox-poller.js';
import { TokenBucket } from './token-bucket.js';

export interface DestinationLimitsOptions {
  /**
   * The claim lease (`outbox.claimTimeoutMs`). A destination holds at most the rows it can send
   * within half of it, so a row claimed now is sent long before its first lease runs out, even
   * if no renewal ever answered.
   */
  readonly leaseMs: number;
  /** The most rows one destination holds whatever its rate: the poller's own buffer bound. */
  readonly maxHeld: number;
  /** Monotonic milliseconds; tests pin it. */
  readonly nowMs?: () => number;
}

/** Weight of the newest publish in a destination's mean publish time. */
const PUBLISH_TIME_WEIGHT = 0.2;

/** One limited destination of this replica. */
class Limit {
  readonly bucket: TokenBucket | null;
  readonly maxInFlight: number | null;
  /** Publishes running now (token taken, not settled). */
  inFlight = 0;
  /** Rows this poller holds claimed for it: waiting, publishing or settling. */
  held = 0;
  /** Mean time of one publish, once one finished (only kept with `maxInFlight`). */
  publishMs: number | null = null;

  constructor(config: DestinationRateLimit, nowMs: () => number) {
    this.bucket =
      config.perSecond === null
        ? null
        : new TokenBucket(config.perSecond, config.burst ?? 1, nowMs);
    this.maxInFlight = config.maxInFlight;
  }
}

/**
 * The rate limits of the destinations of one poller (`destinations.<name>.rateLimit`), per
 * replica. It answers three questions:
 *
 * - dispatch: may a row of this destination start now (`canStart`, then `started`)? A token of
 *   the bucket is there and fewer than `maxInFlight` publishes run;
 * - claim: which destinations have no capacity (`blocked`), so the claim passes over their rows
 *   and they stay pending in the table instead of waiting claimed here;
 * - after a claim: may the poller keep this row (`admit`)? A destination holds at most what it
 *   can send within half the lease (`capacity`); a claim that brought more hands the rest back.
 *
 * Without any `rateLimit` there is no instance at all (`fromConfig` returns null), so the poller's
 * path is the one it always had.
 */
export class DestinationLimits {
  readonly #limits: ReadonlyMap<string, Limit>;
  readonly #horizonMs: number;
  readonly #maxHeld: number;

  private constructor(limits: Map<string, Limit>, options: DestinationLimitsOptions) {
    this.#limits = limits;
    this.#horizonMs = Math.max(1, options.leaseMs / 2);
    this.#maxHeld = Math.max(1, options.maxHeld);
  }

  /** Null when no destination sets `rateLimit`. */
  static fromConfig(
    destinations: Readonly<Record<string, Pick<DestinationConfig, 'rateLimit'>>>,
    options: DestinationLimitsOptions,
  ): DestinationLimits | null {
    const nowMs = options.nowMs ?? (() => performance.now());
    const limits = new Map<string, Limit>();
    for (const [name, destination] of Object.entries(destinations)) {
      const config = destination.rateLimit;
      if (
        config !== null &&
        config !== undefined &&
        (config.perSecond !== null || config.maxInFlight !== null)
      ) {
        limits.set(name, new Limit(config, nowMs));
      }
    }
    return limits.size === 0 ? null : new DestinationLimits(limits, options);
  }

  /** True when `destination` has a limit (its rows go through this class). */
  limits(destination: string): boolean {
    return this.#limits.has(destination);
  }

  /** A token is there and a publish slot of the destination is free. */
  canStart(destination: string): boolean {
    const limit = this.#limits.get(destination);
    if (limit === undefined) return true;
    if (limit.maxInFlight !== null && limit.inFlight >= limit.maxInFlight) return false;
    return limit.bucket === null || limit.bucket.tokens >= 1;
  }

  /** A publish starts: takes its token and its slot. Call only after `canStart` said yes. */
  started(destination: string): void {
    const limit = this.#limits.get(destination);
    if (limit === undefined) return;
    limit.bucket?.tryTake();
    limit.inFlight++;
  }

  /** A publish ended after `publishMs`: its slot is free. */
  finished(destination: string, publishMs: number): void {
    const limit = this.#limits.get(destination);
    if (limit === undefined) return;
    limit.inFlight--;
    if (limit.maxInFlight !== null) {
      limit.publishMs =
        limit.publishMs === null
          ? publishMs
          : limit.publishMs + PUBLISH_TIME_WEIGHT * (publishMs - limit.publishMs);
    }
  }

  /**
   * When a row of `destination` that waits may be looked at again: the time until its next
   * token, or Infinity while it waits for a publish of its own to end (that end dispatches).
   */
  msUntilStart(destination: string): number {
    const limit = this.#limits.get(destination);
    if (limit === undefined) return 0;
    if (limit.maxInFlight !== null && limit.inFlight >= limit.maxInFlight) return Infinity;
    return limit.bucket?.msUntilToken() ?? 0;
  }

  /**
   * The rows `destination` can send within half the lease, at least 1 and at most `maxHeld`:
   * the tokens it has plus those it gains (a rate), and `maxInFlight` publishes one after the
   * other at its mean publish time (twice `maxInFlight` until one publish has been timed).
   */
  capacity(destination: string): number {
    const limit = this.#limits.get(destination);
    if (limit === undefined) return this.#maxHeld;
    let rows = this.#maxHeld;
    if (limit.bucket !== null) rows = Math.min(rows, limit.bucket.grantableWithin(this.#horizonMs));
    if (limit.maxInFlight !== null) {
      const timed =
        limit.publishMs === null
          ? 0
          : (limit.maxInFlight * this.#horizonMs) / Math.max(limit.publishMs, 1);
      rows = Math.min(rows, Math.max(2 * limit.maxInFlight, timed));
    }
    return Math.max(1, Math.floor(rows));
  }

  /**
   * Takes a freshly claimed row of `destination` into the count when the destination holds
   * fewer than its capacity; false means the poller hands the row back at once.
   */
  admit(destination: string): boolean {
    const limit = this.#limits.get(destination);
    if (limit === undefined) return true;
    if (limit.held >= this.capacity(destination)) return false;
    limit.held++;
    return true;
  }

  /**
   * A held row of `destination` is done (its terminal write answered) or handed back. True when
   * this opened the destination for the claim again, the moment to wake the poller.
   */
  release(destination: string): boolean {
    const limit = this.#limits.get(destination);
    if (limit === undefined) return false;
    const wasOpen = this.#open(destination, limit);
    limit.held = Math.max(0, limit.held - 1);
    return !wasOpen && this.#open(destination, limit);
  }

  /**
   * The destinations without capacity for the next claim: those holding more than half of what
   * they can send. Half, so a claim that passes a destination brings at least half its capacity
   * in one round trip, instead of one row per token.
   */
  blocked(): string[] {
    const names: string[] = [];
    for (const [name, limit] of this.#limits) if (!this.#open(name, limit)) names.push(name);
    return names;
  }

  /**
   * The claim's side as a gate of each limited destination: blocked while it holds more than
   * half its capacity. It admits every publish: the dispatch took the token and the slot before
   * the row started, and a row a claim brought beyond the capacity was handed back at once.
   */
  gate(destination: string): DestinationGate {
    return {
      blocked: () => {
        const limit = this.#limits.get(destination);
        return limit !== undefined && !this.#open(destination, limit);
      },
      admit: () => true,
      settled: () => undefined,
    };
  }

  /** Every limited destination, in configuration order. */
  get destinations(): string[] {
    return [...this.#limits.keys()];
  }

  /** Rows held for `destination` now (waiting, publishing or settling). */
  held(destination: string): number {
    return this.#limits.get(destination)?.held ?? 0;
  }

  /** The sum over every limited destination of the rows it may hold: what they add to a claim's worth. */
  get maxHeldTotal(): number {
    return this.#limits.size * this.#maxHeld;
  }

  #open(destination: string, limit: Limit): boolean {
    return limit.held <= this.capacity(destination) / 2;
  }
}

/**
 * The limits of `destinations` for a poller of `outbox`, their gates added to `gates` (the claim
 * then passes over a destination without capacity); null, and nothing added, without any
 * `rateLimit`. A destination holds at most the poller's own buffer (2 × 4 × `batchSize`).
 */
export function destinationLimits(
  outbox: Pick<OutboxConfig, 'claimTimeoutMs' | 'batchSize'>,
  destinations: Readonly<Record<string, Pick<DestinationConfig, 'rateLimit'>>>,
  gates?: DestinationGates,
  nowMs?: () => number,
): DestinationLimits | null {
  const limits = DestinationLimits.fromConfig(destinations, {
    leaseMs: outbox.claimTimeoutMs,
    maxHeld: 2 * maxClaimRows(outbox),
    ...(nowMs ? { nowMs } : {}),
  });
  if (limits !== null && gates !== undefined) {
    for (const destination of limits.destinations) gates.add(destination, limits.gate(destination));
  }
  return limits;
}
