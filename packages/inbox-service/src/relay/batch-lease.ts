import { sanitizeError, type Fence, type InboxStore, type Logger } from '@queuebox/core';
import { relayLogTexts } from './log-texts.js';

/**
 * Keeps the leases of one claimed batch while the relay writes it, renewing every
 * `max(1, lease / 3)` ms (spec §8.1). Renewals and the batch's own writes take turns through
 * `exclusive`: a renewal and a forward touching the same rows at once could deadlock on their
 * row locks, and a renewal is only needed between writes anyway (a forward that outlives its
 * lease is refused by its fence, which is the safe outcome).
 *
 * A row a renewal does not get back is lost: it is left out of every later write of the batch
 * (its fence would refuse it anyway) and reported once. A renewal that throws is not a loss; the
 * next one retries.
 */
export class BatchLease {
  private readonly live = new Map<string, Fence>();
  private readonly lostIds = new Set<string>();
  private turn: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Pick<InboxStore, 'renew'>,
    fences: readonly Fence[],
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {
    for (const fence of fences) this.live.set(fence.id, fence);
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(leaseMs / 3)));
  }

  /** Whether a renewal found the row lost. */
  isLost(id: string): boolean {
    return this.lostIds.has(id);
  }

  /** These rows are written (or given up): no renewal touches them again. */
  settle(ids: Iterable<string>): void {
    for (const id of ids) this.live.delete(id);
  }

  /** Runs `write` when no renewal is running; renewals wait for it in turn. */
  exclusive<T>(write: () => Promise<T>): Promise<T> {
    const result = this.turn.then(write);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** The batch is written: no renewal after this one resolves. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.turn;
  }

  private renew(): Promise<void> {
    return this.exclusive(async () => {
      const fences = [...this.live.values()];
      if (this.timer === null || fences.length === 0) return;
      let owned: Set<string>;
      try {
        owned = await this.store.renew(fences, this.leaseMs);
      } catch (error: unknown) {
        this.logger.warn(relayLogTexts.renewFailed(fences.length, sanitizeError(error)));
        return;
      }
      for (const fence of fences) {
        if (owned.has(fence.id)) continue;
        this.live.delete(fence.id);
        this.lostIds.add(fence.id);
      }
    });
  }
}
