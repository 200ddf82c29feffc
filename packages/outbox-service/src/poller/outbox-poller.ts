import {
  CLAIM_LOAD_WINDOW_MS,
  ConflatedWakeSignal,
  FailureStreak,
  settledWithin,
  sleep,
  sanitizeError,
  type CaptureConfig,
  type ClaimLoad,
  type ClaimedOutboxMessage,
  type Fence,
  type Logger,
  type OutboxConfig,
  type OutboxMetrics,
  type OutboxStore,
  type Tracing,
  type WakeSignal,
} from '@queuebox/core';
import type { DestinationGates } from '../gate/destination-gates.js';
import type { DestinationLimits } from '../limits/destination-limits.js';
import type { PublisherRegistry } from '../publish/publisher-registry.js';
import type { MessageRouter } from '../routing/message-router.js';
import type { TransformPipeline } from '../transform/transform-pipeline.js';
import { CompletionWriter } from './completion-writer.js';
import { DeliverySlots, type Buffered } from './delivery-slots.js';
import { LeaseKeeper } from './lease-keeper.js';
import { logTexts } from './log-texts.js';
import { MessageProcessor, type ProcessorMetrics } from './message-processor.js';
import { ShutdownAbandonedError } from './poller-errors.js';

export type OutboxPollerConfig = Pick<
  OutboxConfig,
  | 'pollIntervalMs'
  | 'batchSize'
  | 'concurrency'
  | 'retryBaseDelayMs'
  | 'claimTimeoutMs'
  | 'pendingGaugeIntervalMs'
  | 'shutdownTimeoutMs'
> & { readonly capture?: Pick<CaptureConfig, 'mode' | 'reconciliationIntervalMs'> };

export type PollerMetrics = ProcessorMetrics &
  Pick<OutboxMetrics, 'pending' | 'oldestPendingAgeSeconds' | 'reclaimed'>;

export interface OutboxPollerDeps {
  /** Uses the optional `release` (shutdown) and `nextWakeDelayMs` (capture modes) when present. */
  readonly store: OutboxStore;
  readonly router: MessageRouter;
  readonly pipeline: TransformPipeline;
  /** One publisher per destination type; a row goes to its routed destination type's. */
  readonly publishers: PublisherRegistry;
  readonly metrics: PollerMetrics;
  readonly logger: Logger;
  /** Capture (or anything in-process) wakes the poller through this; a conflated one by default. */
  readonly wakeSignal?: WakeSignal;
  /**
   * Counts every claim's rows (capture modes): while it says busy, capture's feed is closed,
   * and the poller waits as in polling mode instead of up to `reconciliationIntervalMs`.
   */
  readonly claimLoad?: Pick<ClaimLoad, 'record' | 'busy'>;
  /** Jitter source of retry delays; tests pin it. */
  readonly random?: () => number;
  /**
   * Destinations with a gate (circuit breaker, rate limit): the claim passes over the rows of
   * those without capacity, and a claimed row a gate turns away goes back to pending. Absent or
   * empty: the plain claim and publish path. Needs the store's `release`.
   */
  readonly gates?: DestinationGates;
  /**
   * The destinations' `rateLimit` (per replica; `destinationLimits` builds it and registers its
   * gates). Absent or null: the poller's buffer and dispatch are the ones it always had.
   */
  readonly limits?: DestinationLimits | null;
  /** Present only while tracing is on (core's `Tracing`). */
  readonly tracing?: Tracing;
}

/**
 * Longest wait of a terminal write for company while publishes are in flight (see
 * CompletionWriter). A short wait delivered more than none on the outbox bench, and it delays
 * the next row of the same key by at most the wait.
 */
const COMPLETION_LINGER_MS = 5;

/**
 * The same wait for a row without a key, which no later row waits for. With `batchSize` rows the
 * call goes out at once anyway (lingerRows), and the settling limit below still pauses claims, so
 * it never holds more rows unwritten. A longer wait lowered both the database's and QueueBox's
 * CPU per message to a broker whose confirms slow with CPU spent beside it (docs/benchmarks.md,
 * "Unkeyed completions wait up to 30 ms"). Since claims grow under load
 * (`maxClaimRows`), a group may hold as many rows as one grown claim, and the wait is 100 ms: a
 * synchronous commit (a WAL flush) is what the database pays most per completion on a slow
 * disk, and under load a 30 ms wait made groups of a small part of a claim. Nothing
 * waits for an unkeyed row's write but its lease and the settling limit.
 */
const UNKEYED_COMPLETION_LINGER_MS = 100;

/**
 * The most of the time the gauges' refresh may take. Its query reads every pending row (spec
 * §4.1: a count, and the oldest `created_at`, which no index of the schema holds), so under a
 * deep backlog it costs the database in proportion to the backlog: about a third of a second of
 * a core per 100,000 pending rows, which every 5 s took several percent of the database's time
 * from delivery on the outbox bench, and a backlog of millions would keep a core busy. After a
 * refresh that took `d` ms the next starts no sooner than `d / GAUGES_DUTY` after it (and never
 * sooner than `pendingGaugeIntervalMs`, which the spec makes a lower bound: "at most once per").
 */
const GAUGES_DUTY = 0.02;

/**
 * How far a claim grows past `batchSize` under a deep backlog (see `launchClaims`). Four: the
 * claim's candidate window (outbox-claim.ts) stays 2.56 rows read per row claimed, as at 100,
 * while a backlog costs a quarter of the claim round trips and commits; past it the window
 * doubles again (500 rows read 2,048) and a row costs more, measured with pgbench.
 */
const CLAIM_GROWTH = 4;

/** The largest claim one round trip makes: `CLAIM_GROWTH × batchSize`. At the defaults: 400. */
export function maxClaimRows(config: Pick<OutboxPollerConfig, 'batchSize'>): number {
  return CLAIM_GROWTH * config.batchSize;
}

/**
 * The most rows one poller holds claimed but not delivered: `2 × maxClaimRows` unstarted in the
 * buffer or on their way in a claim, plus `concurrency` publishing. A replica that crashes
 * strands at most these (and the delivered rows whose terminal write was still on its way, at
 * most `2 × maxClaimRows + concurrency` more, see `maxSettling`) until `claimTimeoutMs` lets the
 * reclaim step hand them to another replica. At the defaults (100, 8): 808.
 *
 * Each rate-limited destination adds what it may hold (`DestinationLimits.capacity`, at most
 * `2 × maxClaimRows`): its waiting rows sit outside the buffer so they never crowd out the rest.
 *
 * Why it holds: a claim of `limit` rows starts only while `room()` ≥ `limit`, i.e. while
 * buffered + reserved + publishing ≤ 2 × maxClaimRows + concurrency − limit, so right after it
 * buffered + reserved + publishing ≤ 2 × maxClaimRows + concurrency; rows only move from
 * reserved to buffered to publishing, and nothing else adds to the three.
 */
export function maxClaimedUndelivered(
  config: Pick<OutboxPollerConfig, 'batchSize' | 'concurrency'>,
): number {
  return 2 * maxClaimRows(config) + config.concurrency;
}

function hasKey(message: ClaimedOutboxMessage): boolean {
  return message.key !== null && message.key !== '';
}

/**
 * The outbox poller of spec §4.1–4.6, shaped for throughput:
 *
 * - A claim asks for `batchSize` rows (a claim round trip costs about the same for 10 rows as
 *   for 100), and more under a deep backlog: while claims come back full and every publish slot
 *   is busy (or less than a batch is left in the buffer), each claim asks for twice the last, up
 *   to `maxClaimRows` (4 × batchSize), and a claim that comes back short or with a keyed row
 *   starts again from `batchSize`. Rows go into a double buffer of claimed-but-not-started rows
 *   (at most twice the claim size, so at most 2 × maxClaimRows, in claim order), from which up
 *   to `concurrency` publishes run at once. One claim is on its way at a time (two after a full
 *   claim of keyed rows, see `claim`); it starts as soon as the whole claim fits, i.e. while the
 *   previous one is still being worked off, so the publishes never wait for a claim round
 *   trip; a claim that came back full is followed at once. Buffered rows are under the same
 *   renewed lease as running ones; on shutdown they are handed back (fenced `release`) or,
 *   without it, left to the reclaim step.
 * - Terminal writes go through a group-commit writer, and a publish slot frees as soon as the
 *   message reaches its terminal write, so one message's database round trip overlaps the next
 *   publish.
 * - Every held claim is renewed by ONE batched `renew` per `max(1, claimTimeoutMs/3)` ms.
 * - Reclaim runs at most once per `max(1, claimTimeoutMs/5)` ms; the pending gauges refresh at
 *   most once per `pendingGaugeIntervalMs` and at most `GAUGES_DUTY` of the time, off the claim
 *   path; scrapes never query.
 */
export class OutboxPoller {
  private readonly wakeSignal: WakeSignal;
  private readonly writer: CompletionWriter;
  private readonly leases: LeaseKeeper;
  private readonly slots: DeliverySlots;
  /** Null without any `rateLimit`. */
  private readonly limits: DestinationLimits | null;
  private readonly loopAbort = new AbortController();
  private readonly claims = new Set<Promise<void>>();
  /**
   * Unstarted rows held at most: double buffering, one claim being worked off, one ready, so
   * `2 × claimTarget` (at most `2 × maxClaim`).
   */
  private get bufferCapacity(): number {
    return 2 * this.claimTarget;
  }
  /** The size of the next claim: `batchSize`, doubled per full claim under load (launchClaims). */
  private claimTarget: number;
  private readonly maxClaim: number;
  /** Back-pressure: past this many messages waiting for their terminal write, claims pause. */
  private readonly maxSettling: number;
  private reservedRows = 0;
  /** Calls of `wake()`; a claim compares it at its end with the count at its start. */
  private wakes = 0;
  /** Claims that may be on their way at once: two only after a full claim of keyed rows. */
  private claimsAtOnce = 1;
  /** Failing cycles in a row: one ERROR per outage, a growing pause (see FailureStreak). */
  private readonly streak: FailureStreak;
  private backoffUntilMs = 0;
  private started = false;
  private stopping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private closing: Promise<void> | null = null;
  private lastReclaimMs = Number.NEGATIVE_INFINITY;
  /** The earliest the gauges' next refresh may start (see GAUGES_DUTY). */
  private nextGaugesMs = Number.NEGATIVE_INFINITY;
  private gaugesRunning = false;
  /** Non-null only with a gate registered (and a store that can hand rows back). */
  private readonly gates: DestinationGates | null;
  private handBackBatch: Fence[] = [];
  private handBackDone: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: OutboxPollerConfig,
    private readonly deps: OutboxPollerDeps,
  ) {
    this.wakeSignal = deps.wakeSignal ?? new ConflatedWakeSignal();
    this.gates =
      deps.gates && !deps.gates.isEmpty && deps.store.release !== undefined ? deps.gates : null;
    this.streak = new FailureStreak({
      logger: deps.logger,
      baseDelayMs: config.pollIntervalMs,
      failed: logTexts.cycleFailed,
      recovered: logTexts.cycleRecovered,
    });
    this.writer = new CompletionWriter(deps.store, {
      moreExpected: () => this.slots.publishing > 0,
      lingerMs: COMPLETION_LINGER_MS,
      unkeyedLingerMs: UNKEYED_COMPLETION_LINGER_MS,
      // A grown claim's rows settle together: one terminal write for as many as one claim.
      lingerRows: maxClaimRows(config),
    });
    this.leases = new LeaseKeeper(deps.store, {
      leaseMs: config.claimTimeoutMs,
      intervalMs: Math.max(1, Math.floor(config.claimTimeoutMs / 3)),
      logger: deps.logger,
    });
    const processor = new MessageProcessor({
      router: deps.router,
      pipeline: deps.pipeline,
      publishers: deps.publishers,
      complete: (completion, keyed) => this.writer.submit(completion, keyed),
      metrics: deps.metrics,
      logger: deps.logger,
      retryBaseDelayMs: config.retryBaseDelayMs,
      sentWriteRetryMs: config.claimTimeoutMs,
      ...(deps.random ? { random: deps.random } : {}),
      ...(this.gates
        ? { gating: { gates: this.gates, handBack: (fence: Fence) => this.handBack(fence) } }
        : {}),
      ...(deps.tracing ? { tracing: deps.tracing } : {}),
    });
    this.limits = deps.limits ?? null;
    this.slots = new DeliverySlots(
      config.concurrency,
      processor,
      this.leases,
      deps.logger,
      () => {
        if (this.room() >= this.claimTarget) this.wakeSignal.wake();
      },
      this.limits,
    );
    this.maxClaim = maxClaimRows(config);
    this.claimTarget = config.batchSize;
    this.maxSettling = 2 * this.maxClaim + config.concurrency;
  }

  /** True from `start()` until shutdown begins (the health check's flag). */
  get running(): boolean {
    return this.started && !this.stopping;
  }

  /** Messages whose publish or terminal write is under way. */
  get inFlight(): number {
    return this.slots.inFlight;
  }

  /**
   * The rate-limited destinations without capacity now (see DestinationLimits.blocked): the
   * claim passes over their rows. Empty without any `rateLimit`.
   */
  blockedDestinations(): string[] {
    return this.limits?.blocked() ?? [];
  }

  /** Starts the loop; aborting `signal` is the same as `close()`. */
  start(signal?: AbortSignal): void {
    if (this.started) return;
    this.started = true;
    signal?.addEventListener('abort', () => void this.close(), { once: true });
    this.loopDone = this.loop();
  }

  /**
   * Rows were committed (capture, a relay forward): claim now. A wake while a claim is on its way
   * cannot start another (one claim at a time when idle), and that claim's snapshot may predate
   * the rows, so the claim wakes the loop again when it ends (see `launchClaims`).
   */
  wake(): void {
    this.wakes += 1;
    this.wakeSignal.wake();
  }

  /**
   * Spec §4.6: stop claiming, hand back unstarted rows, wait up to `shutdownTimeoutMs` for the
   * messages in flight, then abandon the rest (they stay `processing` until the reclaim step).
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async loop(): Promise<void> {
    const signal = this.loopAbort.signal;
    while (!this.stopping) {
      // The reclaim step runs beside the claims of the cycle instead of before them: it only
      // turns expired leases back into pending rows, which the next claim takes (a reclaim that
      // returned rows wakes the loop), and waiting for its synchronous commit first delayed the
      // first claim after a start by a WAL flush.
      const reclaim = this.maybeReclaim().catch((error: unknown) => this.cycleFailed(error));
      this.maybeRefreshGauges();
      this.launchClaims();
      await reclaim;
      if (this.stopping) break;
      const backoff = this.backoffUntilMs - performance.now();
      if (backoff > 0) await sleep(backoff, signal);
      else await this.wakeSignal.wait(await this.idleDelayMs(), signal);
    }
  }

  private async maybeReclaim(): Promise<void> {
    const now = performance.now();
    if (now - this.lastReclaimMs < Math.max(1, Math.floor(this.config.claimTimeoutMs / 5))) return;
    // Taken before the call, so a failing reclaim is not retried on every cycle either.
    this.lastReclaimMs = now;
    const count = await this.deps.store.reclaimExpired();
    this.streak.succeeded();
    if (count > 0) {
      this.deps.metrics.reclaimed.inc(count);
      this.wakeSignal.wake();
    }
  }

  /** Rows a claim may add: free buffer places plus free publish slots, minus claims on the way. */
  private room(): number {
    const { concurrency } = this.config;
    return (
      this.bufferCapacity -
      this.slots.buffered -
      this.reservedRows +
      (concurrency - this.slots.publishing)
    );
  }

  private launchClaims(): void {
    while (
      !this.stopping &&
      this.claims.size < this.claimsAtOnce &&
      performance.now() >= this.backoffUntilMs &&
      this.slots.settling <= this.maxSettling
    ) {
      // Only whole claims: a claim costs about the same round trip for 10 rows as for 100, and
      // a grown claim sent as soon as one batch fits would come back one batch long.
      const room = this.room();
      if (room < this.claimTarget) return;
      const limit = this.claimTarget;
      this.reservedRows += limit;
      const wakesBefore = this.wakes;
      const claim: Promise<void> = this.claim(limit).finally(() => {
        this.reservedRows -= limit;
        this.claims.delete(claim);
        // Woken while on its way: the rows of that wake may be newer than its snapshot.
        if (this.wakes !== wakesBefore) this.wakeSignal.wake();
      });
      this.claims.add(claim);
    }
  }

  private async claim(limit: number): Promise<void> {
    const claimedAt = performance.now();
    let rows: ClaimedOutboxMessage[];
    const options = this.gates?.claimOptions() ?? null;
    try {
      // Without a blocked destination the call is the plain claim, argument for argument.
      rows =
        options === null
          ? await this.deps.store.claim(limit, this.config.claimTimeoutMs)
          : await this.deps.store.claim(limit, this.config.claimTimeoutMs, options);
    } catch (error: unknown) {
      this.claimsAtOnce = 1;
      this.cycleFailed(error);
      return;
    }
    this.streak.succeeded();
    // Claim in proportion to demand. A full claim means the backlog is deeper than one batch;
    // with every slot busy the destination is the bound and larger claims cost the database
    // less per row, and with less than a batch left in the buffer the claims are the bound (a
    // round trip took longer than the buffered batch lasted). Either way the next claim doubles.
    // A short claim means the backlog no longer outruns one batch per round trip. Rows with a
    // key keep whole batches: every key held in the buffer is one more the claim's head test
    // reads past, so a deeper buffer of keyed rows makes each claim dearer, not cheaper.
    const full = rows.length >= limit;
    const keyed = rows.some(hasKey);
    if (!full || keyed) this.claimTarget = this.config.batchSize;
    else if (
      this.slots.publishing >= this.config.concurrency ||
      this.slots.buffered < this.config.batchSize
    ) {
      this.claimTarget = Math.min(2 * this.claimTarget, this.maxClaim);
    }
    // Rows without a key: one claim at a time. A claim sent while another is still running reads
    // the same window of due rows (outbox-claim.ts), finds most of them locked by the first and
    // skips them, so it comes back short at the price of a whole claim; with two on their way
    // the database spent about a third more time claiming, for no more rows a second. The double
    // buffer keeps a batch in hand while the next claim is on its way, and claims that cannot
    // keep up grow (above). Keyed rows keep a second claim after a full one: without it one
    // replica on a keyed backlog delivered more, but four replicas on the same backlog delivered
    // less, and the keyed claims stay at `batchSize`, so they cannot grow instead.
    this.claimsAtOnce = full && keyed ? 2 : 1;
    this.deps.claimLoad?.record(rows.length);
    const claimedRows = rows.length;
    if (options !== null) rows = await this.passOver(rows);
    if (this.stopping) {
      // The claim outlived the stop: nobody will start or renew these rows.
      await this.releaseRows(rows);
      return;
    }
    if (this.limits === null) {
      this.slots.add(
        rows.map((message) => ({
          message,
          claim: this.leases.track({ id: message.id, claimToken: message.claimToken }, claimedAt),
        })),
      );
    } else await this.addLimited(rows, this.limits, claimedAt);
    // A full batch suggests more is due: claim again without waiting for the poll interval.
    // Not when rows were handed back: a store that cannot pass over would return them again.
    if (full && rows.length === claimedRows) this.wakeSignal.wake();
  }

  /**
   * Rows of a destination blocked now that the claim still returned (a store that cannot filter
   * on the topic, or a gate that closed during the claim) go back to pending at once.
   */
  private async passOver(rows: ClaimedOutboxMessage[]): Promise<ClaimedOutboxMessage[]> {
    const blocked = this.gates?.blocked();
    if (!blocked || blocked.size === 0) return rows;
    const kept: ClaimedOutboxMessage[] = [];
    const back: ClaimedOutboxMessage[] = [];
    for (const row of rows) {
      const destination = this.deps.router.destinationOf(row.topic);
      (destination !== null && blocked.has(destination) ? back : kept).push(row);
    }
    await this.releaseRows(back);
    return kept;
  }

  /** A gate turned a claimed row away: rows handed back in the same tick share one statement. */
  private handBack(fence: Fence): Promise<void> {
    this.handBackBatch.push(fence);
    if (this.handBackBatch.length > 1) return this.handBackDone;
    this.handBackDone = new Promise<void>((resolve) => {
      setImmediate(() => {
        const fences = this.handBackBatch;
        this.handBackBatch = [];
        void this.releaseFences(fences).then(resolve);
      });
    });
    return this.handBackDone;
  }

  /**
   * Rows of a rate-limited destination are kept up to what it can send within half the lease
   * (DestinationLimits.admit); a claim that brought more hands the rest back at once, so no row
   * waits claimed here for longer than that. The claim passing over a destination without
   * capacity keeps this rare: it happens when one claim brings more than half a destination's
   * capacity.
   */
  private async addLimited(
    rows: readonly ClaimedOutboxMessage[],
    limits: DestinationLimits,
    claimedAt: number,
  ): Promise<void> {
    const kept: Buffered[] = [];
    const excess: ClaimedOutboxMessage[] = [];
    for (const message of rows) {
      const destination = this.deps.router.destinationOf(message.topic);
      if (destination === null || !limits.limits(destination)) {
        kept.push({ message, claim: this.track(message, claimedAt) });
      } else if (limits.admit(destination)) {
        kept.push({ message, claim: this.track(message, claimedAt), limited: destination });
      } else excess.push(message);
    }
    this.slots.add(kept);
    await this.releaseRows(excess);
  }

  private track(message: ClaimedOutboxMessage, claimedAt: number) {
    return this.leases.track({ id: message.id, claimToken: message.claimToken }, claimedAt);
  }

  /**
   * Spec §4.1: a failing cycle is logged and the loop goes on, after a growing pause. An outage
   * fails every cycle: the first failure is the ERROR, the retries are DEBUG (FailureStreak).
   */
  private cycleFailed(error: unknown): void {
    this.backoffUntilMs = performance.now() + this.streak.failed(sanitizeError(error));
    this.wakeSignal.wake();
  }

  private maybeRefreshGauges(): void {
    const started = performance.now();
    if (this.gaugesRunning || started < this.nextGaugesMs) return;
    // Set before the call, so a failing refresh is not retried on every cycle either.
    this.nextGaugesMs = started + this.config.pendingGaugeIntervalMs;
    this.gaugesRunning = true;
    // Off the claim path: a COUNT over a large backlog must not stall delivery.
    this.deps.store
      .gauges()
      .then((gauges) => {
        this.deps.metrics.pending.set(gauges.pending);
        this.deps.metrics.oldestPendingAgeSeconds.set(gauges.oldestPendingAgeSeconds);
      })
      .catch((error: unknown) => {
        // Off the loop's attempts: it reports an outage that the claims have not met yet.
        this.streak.sideFailed(sanitizeError(error));
      })
      .finally(() => {
        this.gaugesRunning = false;
        const tookMs = performance.now() - started;
        this.nextGaugesMs = Math.max(this.nextGaugesMs, started + tookMs / GAUGES_DUTY);
      });
  }

  private async idleDelayMs(): Promise<number> {
    const capture = this.config.capture;
    if (!capture || capture.mode === 'polling') return this.config.pollIntervalMs;
    // Nothing wakes the poller when a gate opens again: its rows are looked at every interval.
    if (this.gates && this.gates.blocked().size > 0) return this.config.pollIntervalMs;
    // Busy: capture's feed is closed for the load (see ClaimLoad), so nothing would wake the
    // poller before the reconciliation interval; it polls, at most a window apart, the cadence
    // at which the load is counted.
    if (this.deps.claimLoad?.busy === true) {
      return Math.min(this.config.pollIntervalMs, CLAIM_LOAD_WINDOW_MS);
    }
    const max = capture.reconciliationIntervalMs;
    if (!this.deps.store.nextWakeDelayMs) return max;
    try {
      return Math.min(Math.max(await this.deps.store.nextWakeDelayMs(max), 1), max);
    } catch {
      return max;
    }
  }

  private async shutdown(): Promise<void> {
    const deadline = performance.now() + this.config.shutdownTimeoutMs;
    this.stopping = true;
    this.loopAbort.abort();
    this.wakeSignal.wake();
    const unstarted = this.slots.stop();
    for (const message of unstarted) this.leases.release(message.id);
    await this.releaseRows(unstarted);
    // A claim still on its way hands its rows back itself (see claim()).
    await settledWithin([this.loopDone, ...this.claims], deadline - performance.now());
    if (!(await this.slots.settledWithin(deadline - performance.now()))) {
      this.deps.logger.warn(
        logTexts.shutdownAbandoned(this.config.shutdownTimeoutMs, this.slots.inFlight),
      );
      this.leases.abortAll(new ShutdownAbandonedError());
    }
    await this.leases.close();
  }

  /** Unstarted rows go back to `pending` at once when the store can do it, else after their lease. */
  private async releaseRows(rows: readonly ClaimedOutboxMessage[]): Promise<void> {
    await this.releaseFences(
      rows.map((message) => ({ id: message.id, claimToken: message.claimToken })),
    );
  }

  private async releaseFences(fences: readonly Fence[]): Promise<void> {
    const release = this.deps.store.release?.bind(this.deps.store);
    if (!release || fences.length === 0) return;
    try {
      await release(fences);
    } catch (error: unknown) {
      this.deps.logger.warn(logTexts.releaseFailed(fences.length, sanitizeError(error)));
    }
  }
}
