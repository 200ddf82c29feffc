import {
  ConflatedWakeSignal,
  FailureStreak,
  sanitizeError,
  type RelayClaimedMessage,
  type Fence,
  type InboxStore,
  type LogFields,
  type Logger,
  type RelayConfig,
  type RelayForward,
  type RelayMetrics,
  type SourceConfig,
  type TraceSpan,
  type Tracing,
} from '@queuebox/core';
import { BatchLease } from './batch-lease.js';
import { relayLogTexts } from './log-texts.js';
import { relayForward, relayTopic } from './outbox-row.js';
import { endForwardSpan, tracedForward } from './forward-span.js';

/** Claims sent ahead while a backlog lasts (see `cycle`). */
const CLAIMS_IN_FLIGHT = 2;

export interface InboxRelayOptions {
  readonly store: InboxStore;
  readonly relay: RelayConfig;
  /** The configured sources; a row of a source not in here renders `{{ eventType }}`. */
  readonly sources: Readonly<Record<string, SourceConfig>>;
  readonly metrics: RelayMetrics;
  readonly logger: Logger;
  /** Monotonic milliseconds for the reclaim and gauge cadences; tests pin it. */
  readonly nowMs?: () => number;
  /**
   * Called after a forward committed outbox rows: the app wakes the outbox poller, so a
   * relayed row does not wait for the poller's next interval.
   */
  readonly onForwarded?: () => void;
  /** Present only while tracing is on: then each relayed row gets a `forward <source>` span. */
  readonly tracing?: Tracing;
}

interface Forwarding {
  readonly message: RelayClaimedMessage;
  readonly forward: RelayForward;
  /** The forward span while tracing is on, else null. */
  readonly span: TraceSpan | null;
}

/**
 * The inbox relay (spec §8): moves due push rows into the outbox. Each cycle runs the reclaim
 * step and the oldest-pending gauge at their own cadence, then claims batches. A claim returns
 * at most one row per aggregate and skips aggregates that have a row in flight, so forwarding a
 * whole batch in one statement keeps each aggregate in (scheduled_at, created_at) order: the
 * guarantee of §8.4 holds with batches as it did with the reference's one row per claim.
 *
 * A full claim is followed by the next claim at once; otherwise the relay keeps claiming while
 * claims return rows, up to `batchSize` rows, so a backlog of one aggregate (one row per claim)
 * still moves `batchSize` rows per cycle, as the reference did; then it waits `pollIntervalMs`.
 * The reclaim step and the gauge run at their own cadence between claims. Nothing here decides
 * ownership: every rule is the store's SQL.
 */
export class InboxRelay {
  private readonly metrics: RelayMetrics;
  private readonly nowMs: () => number;
  private readonly controller = new AbortController();
  /** Stored webhooks wake the wait between cycles (`wake()`); conflated, so a burst costs one cycle. */
  private readonly wakeSignal = new ConflatedWakeSignal();
  private loop: Promise<void> | null = null;
  private isRunning = false;
  private nextReclaimAt = Number.NEGATIVE_INFINITY;
  private nextGaugeAt = Number.NEGATIVE_INFINITY;
  /** Failing cycles in a row: one ERROR per outage, a growing pause (see FailureStreak). */
  private readonly streak: FailureStreak;
  /** The first failure of the running cycle; a cycle is one attempt, however much of it failed. */
  private cycleError: { readonly error: unknown } | null = null;
  /** The wait after the last cycle: the poll interval, or the streak's pause after a failure. */
  private pauseMs: number;

  constructor(private readonly options: InboxRelayOptions) {
    this.metrics = options.metrics;
    this.nowMs = options.nowMs ?? (() => performance.now());
    this.pauseMs = options.relay.pollIntervalMs;
    this.streak = new FailureStreak({
      logger: options.logger,
      baseDelayMs: options.relay.pollIntervalMs,
      failed: relayLogTexts.cycleFailed,
      recovered: relayLogTexts.cycleRecovered,
    });
  }

  /** True while the loop runs (health). */
  get running(): boolean {
    return this.isRunning;
  }

  /**
   * Starts the loop; `signal` stops it like `close()`. Does nothing with `inbox.relay.enabled:
   * false` (push rows then stay in the inbox and the gauge stays 0), or when already started.
   */
  start(signal?: AbortSignal): void {
    if (this.loop !== null || !this.options.relay.enabled) return;
    signal?.addEventListener('abort', () => this.controller.abort(), { once: true });
    if (signal?.aborted) this.controller.abort();
    this.isRunning = true;
    this.loop = this.run().finally(() => {
      this.isRunning = false;
    });
  }

  /** Ends the wait between cycles now (a push row was stored); a wake during a cycle runs one more. */
  wake(): void {
    this.wakeSignal.wake();
  }

  /** Stops claiming and waits for the batch in hand to be written (drains). */
  async close(): Promise<void> {
    this.controller.abort();
    await this.loop;
  }

  /**
   * One cycle of spec §8.1 (the loop calls it, then waits `pollIntervalMs` or the failure pause; tests call it
   * directly). It claims again at once after a full claim, keeps claiming after partial claims
   * until `batchSize` rows moved, and ends on an empty claim. The next claim runs while the
   * previous batch is being written: the claim skips the aggregates of that batch (their rows
   * are still processing), so the overlap never puts two rows of one aggregate in flight, and
   * batches are written one at a time, in claim order. The cycle ends only when its last write
   * is done, so `close()` drains.
   *
   * After a full claim a second claim is sent before the first one's rows are handed over, so
   * two are in flight: the database runs them one after the other under the relay lock (the
   * second's snapshot is taken after the first committed, so it sees the first's rows as
   * processing and skips their aggregates), and the round trip and row parsing of one overlap
   * the other's execution. Claimed rows are never dropped: a cycle that ends (empty claim,
   * close, error) still writes every batch its claims returned.
   *
   * A cycle never throws: every failure is counted (`queuebox_inbox_relay_errors_total`), and the
   * cycle as a whole is one attempt for the failure streak, which logs it and sets the next wait.
   */
  async cycle(): Promise<void> {
    this.cycleError = null;
    try {
      await this.claimAndForward();
    } catch (error: unknown) {
      this.cycleFailed(error);
    }
    // Set by cycleFailed during the awaits above, which flow analysis does not see.
    const failure = this.cycleError as { readonly error: unknown } | null;
    if (failure === null) {
      this.streak.succeeded();
      this.pauseMs = this.options.relay.pollIntervalMs;
    } else {
      this.pauseMs = this.streak.failed(sanitizeError(failure.error));
    }
  }

  private async claimAndForward(): Promise<void> {
    const { store, relay } = this.options;
    const claims: Promise<RelayClaimedMessage[]>[] = [];
    const claim = (): void => {
      claims.push(store.claimForRelay(relay.batchSize, relay.claimTimeoutMs));
    };
    // A holder, not a `let`: it is reassigned inside `write`, which flow analysis does not see.
    const batch: { writing: Promise<void> | null } = { writing: null };
    const write = async (claimed: readonly RelayClaimedMessage[]): Promise<void> => {
      if (batch.writing !== null) await batch.writing;
      batch.writing = this.relayBatch(claimed).catch((error: unknown) => this.cycleFailed(error));
    };
    let movedByPartialClaims = 0;
    try {
      while (!this.controller.signal.aborted) {
        await this.housekeeping();
        if (claims.length === 0) claim();
        const claimed = await claims.shift()!;
        if (claimed.length >= relay.batchSize) while (claims.length < CLAIMS_IN_FLIGHT) claim();
        if (claimed.length === 0) {
          if (claims.length > 0) continue;
          if (batch.writing === null) return;
          await batch.writing;
          batch.writing = null;
          continue;
        }
        await write(claimed);
        if (claimed.length < relay.batchSize) {
          movedByPartialClaims += claimed.length;
          if (movedByPartialClaims >= relay.batchSize && claims.length === 0) return;
        }
      }
    } finally {
      // Rows of a claim still on its way are ours now: write them rather than leave them to
      // their lease (a claim that failed left nothing behind).
      for (const outcome of await Promise.allSettled(claims.splice(0))) {
        if (outcome.status === 'fulfilled' && outcome.value.length > 0) await write(outcome.value);
        else if (outcome.status === 'rejected') this.cycleFailed(outcome.reason);
      }
      if (batch.writing !== null) await batch.writing;
    }
  }

  private async run(): Promise<void> {
    const signal = this.controller.signal;
    while (!signal.aborted) {
      await this.cycle();
      // A stored webhook ends a failure pause too: it proves the database answers again.
      await this.wakeSignal.wait(this.pauseMs, signal);
    }
  }

  /**
   * The reclaim step (at most once per max(1, claimTimeoutMs / 5)) and the gauge (at most once
   * per pendingGaugeIntervalMs). Either failing counts as a relay error, but the cycle still
   * claims: a gauge query that fails must not stop forwarding.
   */
  private async housekeeping(): Promise<void> {
    const { store, relay, logger } = this.options;
    const now = this.nowMs();
    if (now >= this.nextReclaimAt) {
      this.nextReclaimAt = now + Math.max(1, relay.claimTimeoutMs / 5);
      try {
        const reclaimed = await store.reclaimExpired();
        if (reclaimed > 0) logger.debug(`Returned ${reclaimed} expired inbox claim(s) to pending.`);
      } catch (error: unknown) {
        this.cycleFailed(error);
      }
    }
    if (now >= this.nextGaugeAt) {
      this.nextGaugeAt = now + relay.pendingGaugeIntervalMs;
      try {
        this.metrics.oldestPendingAgeSeconds.set(await store.oldestPendingAgeSeconds());
      } catch (error: unknown) {
        this.cycleFailed(error);
      }
    }
  }

  private async relayBatch(claimed: readonly RelayClaimedMessage[]): Promise<void> {
    const { store, relay, sources, logger, tracing } = this.options;
    const lease = new BatchLease(store, claimed.map(fenceOf), relay.claimTimeoutMs, logger);
    try {
      const dead: RelayClaimedMessage[] = [];
      const forwards: Forwarding[] = [];
      for (const message of claimed) {
        const topic = relayTopic(message, sources);
        if (topic === '') dead.push(message);
        else {
          const forward = relayForward(message, topic, relay.maxAttempts);
          forwards.push(
            tracing === undefined
              ? { message, forward, span: null }
              : tracedForward(tracing, message, forward),
          );
        }
      }
      if (dead.length > 0) await this.markDead(dead, lease);
      if (forwards.length > 0) await this.forward(forwards, lease);
    } finally {
      await lease.stop();
    }
  }

  /** Empty topic (spec §8.3 step 2): such a row can reach no destination. */
  private async markDead(dead: readonly RelayClaimedMessage[], lease: BatchLease): Promise<void> {
    for (const message of dead) {
      this.options.logger.error(
        relayLogTexts.emptyTopic(message.source, message.id),
        fieldsOf(message),
      );
    }
    const { open, held } = await lease.exclusive(async () => {
      const open = new Set(dead.filter((m) => !lease.isLost(m.id)));
      const held =
        open.size > 0
          ? await this.options.store.markDead([...open].map(fenceOf))
          : new Set<string>();
      return { open, held };
    });
    lease.settle(dead.map((m) => m.id));
    for (const message of dead) {
      if (open.has(message) && held.has(message.id)) this.metrics.relayErrors.inc();
      else this.claimLost(message, 'mark dead');
    }
  }

  /**
   * One forward statement for the batch. If it fails, each row goes again on its own, so a row
   * the outbox refuses (a topic longer than its column, say) cannot hold back the rest of the
   * batch every time it is reclaimed; the row that fails alone stays claimed until its lease
   * expires, as in the reference.
   */
  private async forward(items: readonly Forwarding[], lease: BatchLease): Promise<void> {
    try {
      await this.forwardChunk(items, lease);
      return;
    } catch (error: unknown) {
      if (items.length === 1) {
        this.forwardFailed(items[0]!, lease, error);
        return;
      }
      this.options.logger.warn(relayLogTexts.batchFailed(items.length, sanitizeError(error)));
    }
    for (const item of items) {
      try {
        await this.forwardChunk([item], lease);
      } catch (error: unknown) {
        this.forwardFailed(item, lease, error);
      }
    }
  }

  private async forwardChunk(items: readonly Forwarding[], lease: BatchLease): Promise<void> {
    const { open, held } = await lease.exclusive(async () => {
      const open = new Set(items.filter((i) => !lease.isLost(i.message.id)));
      const held =
        open.size > 0
          ? await this.options.store.forward([...open].map((i) => i.forward))
          : new Set<string>();
      return { open, held };
    });
    lease.settle(items.map((i) => i.message.id));
    let forwarded = 0;
    for (const item of items) {
      const wasHeld = open.has(item) && held.has(item.message.id);
      if (wasHeld) forwarded++;
      else this.claimLost(item.message, 'forward');
      if (item.span !== null) endForwardSpan(item.span, wasHeld ? 'forwarded' : 'lost');
    }
    if (forwarded > 0) {
      this.metrics.messages.inc({ status: 'forwarded' }, forwarded);
      this.options.onForwarded?.();
    }
  }

  private forwardFailed(item: Forwarding, lease: BatchLease, error: unknown): void {
    lease.settle([item.message.id]);
    this.metrics.relayErrors.inc();
    const reason = sanitizeError(error);
    if (item.span !== null) endForwardSpan(item.span, 'failed', reason);
    this.options.logger.error(
      relayLogTexts.forwardFailed(item.message.id, reason),
      fieldsOf(item.message),
    );
  }

  private claimLost(message: RelayClaimedMessage, action: string): void {
    this.metrics.claimsLost.inc({ component: 'inbox' });
    this.options.logger.warn(relayLogTexts.claimLost(message.id, action), fieldsOf(message));
  }

  /** Counted at once; logged once per cycle at its end, through the streak (see `cycle`). */
  private cycleFailed(error: unknown): void {
    this.metrics.relayErrors.inc();
    this.cycleError ??= { error };
  }
}

function fenceOf(message: RelayClaimedMessage): Fence {
  return { id: message.id, claimToken: message.claimToken };
}

/** The context keys of spec §15 for one relayed row. */
function fieldsOf(message: RelayClaimedMessage): LogFields {
  return { messageId: message.id, source: message.source, correlationId: message.correlationId };
}
