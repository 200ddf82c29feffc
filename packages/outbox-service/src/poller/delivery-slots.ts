import {
  settledWithin,
  sanitizeError,
  type ClaimedOutboxMessage,
  type Logger,
} from '@queuebox/core';
import type { Claim } from './claim.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { logTexts } from './log-texts.js';
import type { MessageProcessor } from './message-processor.js';

interface Buffered {
  readonly message: ClaimedOutboxMessage;
  readonly claim: Claim;
}

/**
 * The claimed rows of one poller between the claim and their terminal write: a FIFO buffer of
 * rows not started yet, and at most `concurrency` publishes at once. A publish slot frees when
 * the message reaches its terminal write (the `settling` hook), not when the write commits, so
 * the group-commit wait of one message never delays the next publish; the row stays tracked
 * (and its lease renewed) until the write has answered.
 */
export class DeliverySlots {
  private readonly buffer: Buffered[] = [];
  private readonly tasks = new Map<string, Promise<void>>();
  private publishingCount = 0;
  private dispatching = false;
  private stopped = false;

  constructor(
    private readonly concurrency: number,
    private readonly processor: MessageProcessor,
    private readonly leases: LeaseKeeper,
    private readonly logger: Logger,
    /** A slot freed or a terminal write answered: the poller may claim again. */
    private readonly onProgress: () => void,
  ) {}

  /** Rows claimed but not started. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Messages publishing now (≤ concurrency). */
  get publishing(): number {
    return this.publishingCount;
  }

  /** Messages that finished publishing and wait for their terminal write. */
  get settling(): number {
    return this.tasks.size - this.publishingCount;
  }

  /** Messages started and not finished (publishing or settling). */
  get inFlight(): number {
    return this.tasks.size;
  }

  /** Takes freshly claimed rows (in claim order) under their claims. */
  add(rows: readonly Buffered[]): void {
    for (const row of rows) this.buffer.push(row);
    this.dispatch();
  }

  /** No row starts after this; the unstarted ones are returned for hand-back. */
  stop(): ClaimedOutboxMessage[] {
    this.stopped = true;
    return this.buffer.splice(0).map(({ message }) => message);
  }

  /** Resolves true when every started message finished within `ms`. */
  settledWithin(ms: number): Promise<boolean> {
    return settledWithin([...this.tasks.values()], ms);
  }

  /** Re-entrant calls (a task that settles synchronously) fold into the running loop. */
  private dispatch(): void {
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      while (!this.stopped && this.publishingCount < this.concurrency && this.buffer.length > 0) {
        const next = this.buffer.shift();
        if (next) this.start(next);
      }
    } finally {
      this.dispatching = false;
    }
  }

  private start({ message, claim }: Buffered): void {
    const id = message.id;
    this.publishingCount++;
    let slotHeld = true;
    const freeSlot = (): void => {
      if (!slotHeld) return;
      slotHeld = false;
      this.publishingCount--;
      this.dispatch();
      this.onProgress();
    };
    const task = this.processor
      .process(message, claim, () => {
        this.leases.settling(id);
        freeSlot();
      })
      .catch((error: unknown) => {
        // process() handles its own errors; this only keeps a bug from becoming an unhandled
        // rejection that takes the process down.
        this.logger.error(logTexts.processingFailed(id, sanitizeError(error)));
      })
      .finally(() => {
        freeSlot();
        this.leases.release(id);
        this.tasks.delete(id);
        // The terminal write answered: the next row of this key is claimable now.
        this.onProgress();
      });
    this.tasks.set(id, task);
  }
}
