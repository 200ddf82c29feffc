import { randomUUID } from 'node:crypto';
import {
  ConflatedWakeSignal,
  sanitizeError,
  sleep,
  type CaptureConfig,
  type CaptureSession,
  type CaptureSource,
  type ChangeKind,
  type ChangeStream,
  type DeliveryLoad,
  type Logger,
} from '@queuebox/core';
import { CaptureBackoff } from './capture-backoff.js';
import { captureFingerprint } from './fingerprint.js';
import { captureLogTexts } from './log-texts.js';

/**
 * Where capture's feed is: `streaming` (changes wake the poller), `paused` (closed on purpose
 * while the poller is busy, see `DeliveryLoad`; the session and its lock stay), `down` (no run,
 * between attempts or for good).
 */
export type CaptureFeedState = 'streaming' | 'paused' | 'down';

/** What capture reports to the metrics (docs/metrics.md). */
export interface CaptureMetrics {
  /** WAL a durable slot left by QueueBox 0.8.1 retains; `bytes` null: the slot is gone. */
  durableSlotRetained(slot: string, bytes: number | null): void;
  /** Every change of the feed's state, and the first one. */
  feedState(state: CaptureFeedState): void;
}

export interface CaptureTimings {
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  /** Spec §10.1: the session is checked every 1 s with a 2 s timeout. */
  readonly checkIntervalMs: number;
  readonly checkTimeoutMs: number;
  /** How often the retained WAL of a durable slot is measured again. */
  readonly slotCheckIntervalMs: number;
  /** The second wake after an insert (see `onChange`); null: none. */
  readonly followUpWakeMs: number | null;
}

const TIMINGS: CaptureTimings = {
  initialBackoffMs: 1_000,
  maxBackoffMs: 30_000,
  checkIntervalMs: 1_000,
  checkTimeoutMs: 2_000,
  slotCheckIntervalMs: 60_000,
  followUpWakeMs: 10,
};

export interface CaptureServiceOptions {
  readonly capture: Pick<CaptureConfig, 'identity'>;
  readonly source: CaptureSource;
  /** Wakes the outbox poller (conflated there). */
  readonly wake: () => void;
  readonly logger: Logger;
  readonly metrics?: CaptureMetrics;
  /**
   * The poller's load: while it is busy the feed is closed (on PostgreSQL the replication
   * connection and its temporary slot go), and opened again once it is not. Without it the
   * feed stays open.
   */
  readonly load?: DeliveryLoad;
  readonly timings?: Partial<CaptureTimings>;
}

type Outcome = 'retry' | 'stop';

/**
 * The capture loop of spec §10.1: every attempt wakes the poller, opens a session, takes the
 * ownership lock of the identity, records the identity in the registry, runs the preflight and
 * streams the outbox's changes, waking the poller on each insert; the session is checked every
 * second. Any end wakes again, marks capture unhealthy and retries after the backoff, except
 * when another process owns the identity: then capture stops for good and delivery goes on
 * through SQL alone (no election, failover is manual).
 *
 * Capture only wakes. Nothing here claims, writes or skips an outbox row; a missed change
 * costs latency until the poller's reconciliation, never a message.
 */
export class CaptureService {
  private readonly timings: CaptureTimings;
  private readonly backoff: CaptureBackoff;
  private readonly controller = new AbortController();
  private loop: Promise<void> | null = null;
  private session: CaptureSession | null = null;
  /** The id of the last session that held the lock: recognises our own half-open leftover. */
  private lastOwnerSession: string | null = null;
  private state: CaptureFeedState | null = null;
  private followUp: NodeJS.Timeout | null = null;
  private readonly slotsSeen = new Set<string>();
  private readonly listener = { onChange: (kind: ChangeKind) => this.onChange(kind) };

  constructor(private readonly options: CaptureServiceOptions) {
    this.timings = { ...TIMINGS, ...options.timings };
    this.backoff = new CaptureBackoff(this.timings.initialBackoffMs, this.timings.maxBackoffMs);
  }

  /** The health flag of component `outbox-capture` (advisory): true while changes stream. */
  get healthy(): boolean {
    return this.state === 'streaming' || this.state === 'paused';
  }

  /** Where the feed is now (the metric `queuebox_capture_feed_state`). */
  get feedState(): CaptureFeedState {
    return this.state ?? 'down';
  }

  start(): void {
    this.setState('down');
    this.loop ??= this.run();
  }

  /** Ends the run (its session, lock and slot with it) and waits for it. */
  async close(): Promise<void> {
    this.controller.abort();
    if (this.followUp) clearTimeout(this.followUp);
    await this.session?.close();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.controller.signal;
    while (!signal.aborted) {
      this.options.wake();
      const outcome = await this.attempt(signal);
      this.setState('down');
      this.options.wake();
      if (outcome === 'stop' || signal.aborted) return;
      await sleep(this.backoff.next(), signal);
    }
  }

  private async attempt(signal: AbortSignal): Promise<Outcome> {
    const { logger } = this.options;
    let healthySince: number | null = null;
    try {
      this.session = await this.options.source.open();
      const session = this.session;
      if (signal.aborted) return 'stop';
      if (!(await this.takeLock(session))) return 'stop';
      await this.register(session);
      await session.preflight();
      await this.checkDurableSlots(session);
      const stream = await session.openStream(this.listener);
      this.setState('streaming');
      healthySince = performance.now();
      this.options.wake();
      logger.info(captureLogTexts.running(this.options.capture.identity));
      await this.watch(session, stream, signal);
      return 'stop';
    } catch (error: unknown) {
      if (signal.aborted) return 'stop';
      logger.warn(captureLogTexts.interrupted(sanitizeError(error)));
      return 'retry';
    } finally {
      this.setState('down');
      if (healthySince !== null) this.backoff.ranFor(performance.now() - healthySince);
      await this.session?.close();
      this.session = null;
    }
  }

  /** False: another process owns the identity, and capture stops for good. */
  private async takeLock(session: CaptureSession): Promise<boolean> {
    const attempt = await session.tryLock();
    if (attempt.held) {
      this.lastOwnerSession = session.id;
      return true;
    }
    if (attempt.holder !== null && attempt.holder === this.lastOwnerSession) {
      // Our previous session, cut on our side but not yet on the server's: it would hold the
      // lock until the server's TCP keepalive noticed, which can take hours.
      await session.endStaleSession(attempt.holder);
      throw new Error(captureLogTexts.staleSession(this.options.capture.identity, attempt.holder));
    }
    this.options.logger.warn(captureLogTexts.ownerElsewhere);
    return false;
  }

  /**
   * The registry row (spec §3.4) records that this identity is captured. Capture keeps no
   * state between connections, so a row that differs (or one QueueBox 0.8.1 wrote) needs no
   * recovery, and is left as it is, so that a rollback to 0.8.1 finds its own row.
   */
  private async register(session: CaptureSession): Promise<void> {
    const { identity } = this.options.capture;
    const fingerprint = captureFingerprint(session.fingerprintLines);
    const existing = await session.registration(identity);
    if (existing === null) {
      await session.register({ identity, stateId: randomUUID(), fingerprint });
      this.options.logger.info(captureLogTexts.registered(identity));
    } else if (existing.fingerprint !== fingerprint) {
      this.options.logger.debug(captureLogTexts.settingsDiffer(identity));
    }
  }

  /**
   * Streams until the feed ends, the session is lost, or close(). Throws the reason. While the
   * poller is busy the feed is closed and the session (with the lock) kept; once it is not,
   * a new feed opens, and its start wakes the poller, which claims what was committed between
   * its last claim and the feed's start.
   */
  private async watch(
    session: CaptureSession,
    stream: ChangeStream,
    signal: AbortSignal,
  ): Promise<void> {
    const { load } = this.options;
    const loadChanged = new ConflatedWakeSignal();
    const unsubscribe = load?.onChange(() => loadChanged.wake());
    let feed: Feed | null = watchFeed(stream);
    let nextCheck = performance.now() + this.timings.checkIntervalMs;
    let nextSlotCheck = performance.now() + this.timings.slotCheckIntervalMs;
    try {
      while (!signal.aborted) {
        const busy = load?.busy === true;
        if (busy && feed !== null) {
          const closing = feed;
          feed = null;
          await closing.stream.close();
          this.setState('paused');
          this.options.logger.debug(captureLogTexts.paused);
        } else if (!busy && feed === null) {
          feed = watchFeed(await session.openStream(this.listener));
          this.setState('streaming');
          this.options.logger.debug(captureLogTexts.resumed);
          this.options.wake();
          continue;
        }
        const untilCheck = Math.max(0, nextCheck - performance.now());
        await Promise.race([...(feed ? [feed.end] : []), loadChanged.wait(untilCheck, signal)]);
        if (feed?.ended === true) {
          await feed.end;
          if (!signal.aborted) throw new Error('The replication stream ended.');
          return;
        }
        if (signal.aborted) return;
        if (performance.now() < nextCheck) continue;
        nextCheck = performance.now() + this.timings.checkIntervalMs;
        await this.check(session, signal);
        if (performance.now() >= nextSlotCheck) {
          nextSlotCheck = performance.now() + this.timings.slotCheckIntervalMs;
          await this.checkDurableSlots(session);
        }
      }
    } finally {
      unsubscribe?.();
      loadChanged.wake();
    }
  }

  /** Spec §10.1 step 5: the session must still answer, and still be the one with the lock. */
  private async check(session: CaptureSession, signal: AbortSignal): Promise<void> {
    if (await session.alive(this.timings.checkTimeoutMs)) return;
    if (signal.aborted) return;
    throw new Error(captureLogTexts.lockLost);
  }

  private setState(state: CaptureFeedState): void {
    if (this.state === state) return;
    this.state = state;
    this.options.metrics?.feedState(state);
  }

  /**
   * A durable slot of the configured name is what QueueBox 0.8.1 left: nobody reads it any
   * more, and it retains WAL until the disk fills. Warn once per process, keep the gauge
   * current; a failed check is not a reason to stop capture.
   */
  private async checkDurableSlots(session: CaptureSession): Promise<void> {
    if (!session.durableSlots) return;
    const { logger, metrics } = this.options;
    let slots;
    try {
      slots = await session.durableSlots();
    } catch (error: unknown) {
      logger.debug(`The check for durable replication slots failed: ${sanitizeError(error)}`);
      return;
    }
    const present = new Set(slots.map((slot) => slot.name));
    for (const name of this.slotsSeen) {
      if (present.has(name)) continue;
      this.slotsSeen.delete(name);
      metrics?.durableSlotRetained(name, null);
      logger.info(captureLogTexts.durableSlotGone(name));
    }
    for (const slot of slots) {
      metrics?.durableSlotRetained(slot.name, slot.retainedBytes);
      if (this.slotsSeen.has(slot.name)) continue;
      this.slotsSeen.add(slot.name);
      logger.warn(captureLogTexts.durableSlot(slot));
    }
  }

  /**
   * Spec §10: inserts wake, updates and deletes do not, an unreadable change wakes. A second
   * wake follows shortly: the server can send a commit a moment before it is visible to other
   * sessions (WAL flush comes before the commit shows in the proc array), and a claim that
   * raced it would otherwise leave the row to the reconciliation interval.
   */
  private onChange(kind: ChangeKind): void {
    if (kind !== 'insert' && kind !== 'unreadable') return;
    this.options.wake();
    const delay = this.timings.followUpWakeMs;
    if (delay === null || this.followUp !== null) return;
    this.followUp = setTimeout(() => {
      this.followUp = null;
      this.options.wake();
    }, delay);
    this.followUp.unref();
  }
}

/** A feed being watched: `ended` turns true once the stream's `ended` settled. */
interface Feed {
  readonly stream: ChangeStream;
  readonly end: Promise<void>;
  readonly ended: boolean;
}

function watchFeed(stream: ChangeStream): Feed {
  let ended = false;
  const end = stream.ended.finally(() => {
    ended = true;
  });
  // Awaited while the loop runs; a failure after the loop left (close, a lost session, a feed
  // closed for the load) must not become an unhandled rejection, which would end the process.
  end.catch(() => undefined);
  return {
    stream,
    end,
    get ended() {
      return ended;
    },
  };
}
