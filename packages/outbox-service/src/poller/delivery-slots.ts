import {
  settledWithin,
  sanitizeError,
  type ClaimedOutboxMessage,
  type Logger,
} from '@queuebox/core';
import type { DestinationLimits } from '../limits/destination-limits.js';
import type { Claim } from './claim.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { logTexts } from './log-texts.js';
import type { MessageProcessor } from './message-processor.js';

export interface Buffered {
  readonly message: ClaimedOutboxMessage;
  readonly claim: Claim;
  /** The destination when it has a rate limit (the row waits for its capacity), else absent. */
  readonly limited?: string;
}

/** A row waiting for its limited destination, with its place in claim order. */
interface Waiting {
  readonly row: Buffered;
  readonly order: number;
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
  /**
   * Rows of rate-limited destinations (`limits`), one claim-ordered queue per destination,
   * outside `buffer`: a row that waits for a token must not keep the rows behind it from their
   * slots, nor take the buffer places the poller claims other destinations' rows into. What
   * these queues hold is bounded per destination by `DestinationLimits.admit`.
   */
  private readonly waiting = new Map<string, Waiting[]>();
  private waitingCount = 0;
  /** Claim order of the rows added, so a waiting row that may start goes before younger rows. */
  private order = 0;
  private bufferOrder: number[] = [];
  private tokenTimer: NodeJS.Timeout | null = null;
  private tokenTimerAt = Infinity;

  constructor(
    private readonly concurrency: number,
    private readonly processor: MessageProcessor,
    private readonly leases: LeaseKeeper,
    private readonly logger: Logger,
    /** A slot freed or a terminal write answered: the poller may claim again. */
    private readonly onProgress: () => void,
    /** Null without any `rateLimit`: the dispatch loop is the FIFO it always was. */
    private readonly limits: DestinationLimits | null = null,
  ) {}

  /** Rows claimed but not started (those waiting for a rate-limited destination not counted). */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Rows claimed for rate-limited destinations, waiting for a token or a slot of their own. */
  get waitingForLimit(): number {
    return this.waitingCount;
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
    if (this.limits === null) {
      for (const row of rows) this.buffer.push(row);
    } else {
      for (const row of rows) {
        const order = this.order++;
        if (row.limited === undefined) {
          this.buffer.push(row);
          this.bufferOrder.push(order);
          continue;
        }
        let queue = this.waiting.get(row.limited);
        if (queue === undefined) this.waiting.set(row.limited, (queue = []));
        queue.push({ row, order });
        this.waitingCount++;
      }
    }
    this.dispatch();
  }

  /** No row starts after this; the unstarted ones are returned for hand-back. */
  stop(): ClaimedOutboxMessage[] {
    this.stopped = true;
    this.clearTokenTimer();
    const unstarted = this.buffer.splice(0).map(({ message }) => message);
    this.bufferOrder = [];
    for (const [destination, queue] of this.waiting) {
      for (const { row } of queue) {
        unstarted.push(row.message);
        this.limits?.release(destination);
      }
    }
    this.waiting.clear();
    this.waitingCount = 0;
    return unstarted;
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
      if (this.limits === null) {
        while (!this.stopped && this.publishingCount < this.concurrency && this.buffer.length > 0) {
          const next = this.buffer.shift();
          if (next) this.start(next);
        }
      } else this.dispatchLimited(this.limits);
    } finally {
      this.dispatching = false;
    }
  }

  /**
   * The dispatch loop with rate limits: of the rows that may start now (the buffer's head, and
   * the head of each limited destination that has a token and a slot of its own), the oldest in
   * claim order goes first, so limits change nothing between rows of unlimited destinations.
   * Rows still waiting for a token get one timer, at the earliest token.
   */
  private dispatchLimited(limits: DestinationLimits): void {
    while (!this.stopped && this.publishingCount < this.concurrency) {
      let best: Waiting | undefined;
      let bestDestination = '';
      if (this.waitingCount > 0) {
        for (const [destination, queue] of this.waiting) {
          const head = queue[0];
          if (head === undefined || (best !== undefined && head.order > best.order)) continue;
          if (limits.canStart(destination)) {
            best = head;
            bestDestination = destination;
          }
        }
      }
      const bufferHead = this.bufferOrder[0];
      if (best !== undefined && (bufferHead === undefined || best.order < bufferHead)) {
        this.waiting.get(bestDestination)?.shift();
        this.waitingCount--;
        limits.started(bestDestination);
        this.start(best.row);
        continue;
      }
      const next = this.buffer.shift();
      this.bufferOrder.shift();
      if (next === undefined) break;
      this.start(next);
    }
    if (!this.stopped && this.waitingCount > 0 && this.publishingCount < this.concurrency) {
      this.armTokenTimer(limits);
    }
  }

  /** Wakes the dispatch when the earliest waiting destination has its next token. */
  private armTokenTimer(limits: DestinationLimits): void {
    let ms = Infinity;
    for (const [destination, queue] of this.waiting) {
      if (queue.length > 0) ms = Math.min(ms, limits.msUntilStart(destination));
    }
    // Infinity: every waiting row waits for a publish of its own destination, whose end dispatches.
    if (ms === Infinity) return;
    const at = performance.now() + ms;
    if (this.tokenTimer !== null && this.tokenTimerAt <= at) return;
    this.clearTokenTimer();
    this.tokenTimerAt = at;
    // Rounded up: a timer that fires before the token is whole would find none and wait again.
    this.tokenTimer = setTimeout(
      () => {
        this.tokenTimer = null;
        this.tokenTimerAt = Infinity;
        this.dispatch();
      },
      Math.max(1, Math.ceil(ms)),
    );
  }

  private clearTokenTimer(): void {
    if (this.tokenTimer !== null) clearTimeout(this.tokenTimer);
    this.tokenTimer = null;
    this.tokenTimerAt = Infinity;
  }

  private start({ message, claim, limited }: Buffered): void {
    const id = message.id;
    this.publishingCount++;
    let slotHeld = true;
    const startedAt = limited === undefined ? 0 : performance.now();
    const freeSlot = (): void => {
      if (!slotHeld) return;
      slotHeld = false;
      this.publishingCount--;
      if (limited !== undefined) this.limits?.finished(limited, performance.now() - startedAt);
      this.dispatch();
      // A limited row's slot wakes no claim: the rows of unlimited destinations that fill the
      // slots wake it as they free theirs, and a wake per token would claim once per token.
      if (limited === undefined) this.onProgress();
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
        // The terminal write answered: the next row of this key is claimable now. A limited
        // destination wakes the poller only when this opened it to the claim again: a claim per
        // row sent would pass over its rows in the table once per token.
        if (limited === undefined || this.limits?.release(limited) === true) this.onProgress();
      });
    this.tasks.set(id, task);
  }
}
