import { sanitizeError, type Fence, type Logger, type OutboxStore } from '@queuebox/core';
import { Claim } from './claim.js';
import { ClaimLostError } from './poller-errors.js';

interface Lease {
  readonly fence: Fence;
  readonly claim: Claim;
  /** Local estimate of when the lease runs out: request start + lease, so never too late. */
  confirmedUntil: number;
  /** Its terminal write is submitted: the fence of that write decides, not the renewal. */
  settling: boolean;
}

export interface LeaseKeeperOptions {
  readonly leaseMs: number;
  /** Renewal cadence; the poller passes `max(1, claimTimeoutMs / 3)` (spec §4.4). */
  readonly intervalMs: number;
  readonly logger: Logger;
  readonly nowMs?: () => number;
}

/**
 * Keeps the leases of every claimed row of this poller (buffered and in flight) with ONE batched
 * `renew` per interval instead of one timer and one statement per message. An id the store does
 * not return is no longer ours: its Claim aborts with "Claim ownership lost", which
 * cancels the publish (the SQL fence still guards I/O that cannot be cancelled).
 *
 * A renewal that throws is not taken as a loss (a database blip must not cancel every message
 * in flight at once); the next tick retries, and only a lease whose last confirmed expiry has
 * passed is given up.
 */
export class LeaseKeeper {
  private readonly leases = new Map<string, Lease>();
  private readonly nowMs: () => number;
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<OutboxStore, 'renew'>,
    private readonly options: LeaseKeeperOptions,
  ) {
    this.nowMs = options.nowMs ?? (() => performance.now());
  }

  get size(): number {
    return this.leases.size;
  }

  /** Starts keeping a claim made at `claimedAtMs` (taken before the claim call). */
  track(fence: Fence, claimedAtMs: number): Claim {
    const claim = new Claim();
    this.leases.set(fence.id, {
      fence,
      claim,
      confirmedUntil: claimedAtMs + this.options.leaseMs,
      settling: false,
    });
    this.timer ??= setInterval(() => void this.renew(), this.options.intervalMs);
    return claim;
  }

  /** The terminal write of `id` is on its way; a renewal that misses it must not abort it. */
  settling(id: string): void {
    const lease = this.leases.get(id);
    if (lease) lease.settling = true;
  }

  release(id: string): void {
    this.leases.delete(id);
    if (this.leases.size === 0) this.stopTimer();
  }

  /** Aborts every kept claim with `reason` (shutdown abandon) and forgets them. */
  abortAll(reason: Error): void {
    for (const lease of this.leases.values()) lease.claim.abort(reason);
    this.leases.clear();
    this.stopTimer();
  }

  async close(): Promise<void> {
    this.stopTimer();
    if (this.renewing) await this.renewing;
  }

  /** One batched renewal of every kept claim; overlapping ticks are skipped. */
  renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    const batch = [...this.leases.values()].filter((l) => !l.settling);
    if (batch.length === 0) return;
    const startedAt = this.nowMs();
    let owned: Set<string>;
    try {
      owned = await this.store.renew(
        batch.map((l) => l.fence),
        this.options.leaseMs,
      );
    } catch (error: unknown) {
      this.options.logger.warn(
        `Renewing the claims of ${batch.length} message(s) failed. The next renewal retries. Reason: ${sanitizeError(error)}`,
      );
      const now = this.nowMs();
      for (const lease of batch) {
        if (this.isLive(lease) && lease.confirmedUntil <= now) this.lose(lease);
      }
      return;
    }
    for (const lease of batch) {
      if (!this.isLive(lease)) continue;
      if (owned.has(lease.fence.id)) lease.confirmedUntil = startedAt + this.options.leaseMs;
      else this.lose(lease);
    }
  }

  private isLive(lease: Lease): boolean {
    return this.leases.get(lease.fence.id) === lease && !lease.settling;
  }

  private lose(lease: Lease): void {
    this.leases.delete(lease.fence.id);
    lease.claim.abort(new ClaimLostError());
    if (this.leases.size === 0) this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
