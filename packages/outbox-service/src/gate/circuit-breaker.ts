import type { CircuitBreakerConfig } from '@queuebox/core';
import type { DestinationGate, GateOutcome, SettleVerdict } from './destination-gates.js';

export type CircuitState = 'closed' | 'open' | 'half-open';

/** The values of `queuebox_destination_circuit_state`. */
export const CIRCUIT_STATE_VALUES: Readonly<Record<CircuitState, number>> = {
  closed: 0,
  open: 1,
  'half-open': 2,
};

export interface CircuitTransition {
  readonly destination: string;
  readonly from: CircuitState;
  readonly to: CircuitState;
  /** Why, in words for the log line. */
  readonly reason: string;
  /** Open only: how long until the one probe may go. */
  readonly openForMs?: number;
}

/** Buckets of the failure-ratio window: the window slides by a tenth of itself. */
const WINDOW_BUCKETS = 10;

/**
 * The circuit breaker of one destination, as a gate: closed lets every publish go and counts
 * the outcomes; open passes over the destination's rows (the claim leaves them pending, no
 * attempt is made or counted) for `openMs` or a `Retry-After`; half-open lets exactly one
 * publish through, closing on its success and opening again on its failure. Time is the gates'
 * monotonic ms; `onTransition` runs once per change of state (log line, gauge).
 */
export class CircuitBreaker implements DestinationGate {
  private current: CircuitState = 'closed';
  private openUntil = 0;
  private probing = false;
  /** Admitted publishes not settled yet: a probe goes only when none is left from before. */
  private inFlight = 0;
  private consecutiveFailures = 0;
  private readonly calls = new Array<number>(WINDOW_BUCKETS).fill(0);
  private readonly failures = new Array<number>(WINDOW_BUCKETS).fill(0);
  private bucketEpoch = 0;
  private readonly bucketMs: number;

  constructor(
    readonly destination: string,
    private readonly config: CircuitBreakerConfig,
    private readonly onTransition: (transition: CircuitTransition) => void,
  ) {
    this.bucketMs = Math.max(1, Math.ceil(config.windowMs / WINDOW_BUCKETS));
  }

  /** The state at `nowMs` (an open circuit whose time is over reads half-open). */
  state(nowMs: number): CircuitState {
    this.refresh(nowMs);
    return this.current;
  }

  blocked(nowMs: number): boolean {
    this.refresh(nowMs);
    return this.current === 'open' || (this.current === 'half-open' && this.inFlight > 0);
  }

  admit(nowMs: number): boolean {
    this.refresh(nowMs);
    if (this.current === 'open') return false;
    if (this.current === 'half-open') {
      // One probe, and only once the publishes started before the circuit opened have
      // answered: the next outcome is then the probe's own.
      if (this.inFlight > 0) return false;
      this.probing = true;
    }
    this.inFlight++;
    return true;
  }

  /** A failed probe is `uncounted`: the outage it confirms costs its row no attempt. */
  settled(outcome: GateOutcome, nowMs: number): SettleVerdict | undefined {
    this.refresh(nowMs);
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (outcome.kind === 'cancelled') {
      // No answer from the destination: it tells nothing, and a probe may go again.
      if (this.current === 'half-open') this.probing = false;
      return undefined;
    }
    const failed = outcome.kind === 'failure';
    const retryAfterMs = failed ? outcome.retryAfterMs : undefined;
    if (this.current === 'half-open') {
      if (!this.probing) return undefined;
      this.probing = false;
      if (!failed) {
        this.close('the probe publish succeeded');
        return undefined;
      }
      this.open(nowMs, retryAfterMs, 'the probe publish failed');
      return 'uncounted';
    }
    if (this.current === 'open') {
      // A publish that started before the circuit opened: only a later Retry-After extends it.
      if (retryAfterMs !== undefined) this.extend(nowMs, retryAfterMs);
      return undefined;
    }
    this.record(nowMs, failed);
    if (!failed) {
      this.consecutiveFailures = 0;
      return undefined;
    }
    this.consecutiveFailures++;
    if (retryAfterMs !== undefined) {
      this.open(nowMs, retryAfterMs, 'the destination answered with Retry-After');
    } else if (this.consecutiveFailures >= this.config.failureThreshold) {
      this.open(nowMs, undefined, `${this.consecutiveFailures} publishes in a row failed`);
    } else if (this.ratioExceeded()) {
      this.open(nowMs, undefined, this.ratioReason());
    }
    return undefined;
  }

  private refresh(nowMs: number): void {
    if (this.current === 'open' && nowMs >= this.openUntil) {
      this.transition('half-open', 'the open time is over; one publish probes the destination');
    }
  }

  private open(nowMs: number, retryAfterMs: number | undefined, reason: string): void {
    const openForMs =
      retryAfterMs === undefined
        ? this.config.openMs
        : Math.min(retryAfterMs, this.config.maxRetryAfterMs);
    this.openUntil = nowMs + openForMs;
    this.probing = false;
    this.resetCounts();
    this.transition('open', reason, openForMs);
  }

  private extend(nowMs: number, retryAfterMs: number): void {
    this.openUntil = Math.max(
      this.openUntil,
      nowMs + Math.min(retryAfterMs, this.config.maxRetryAfterMs),
    );
  }

  private close(reason: string): void {
    this.resetCounts();
    this.transition('closed', reason);
  }

  private transition(to: CircuitState, reason: string, openForMs?: number): void {
    const from = this.current;
    this.current = to;
    this.onTransition({
      destination: this.destination,
      from,
      to,
      reason,
      ...(openForMs === undefined ? {} : { openForMs }),
    });
  }

  private resetCounts(): void {
    this.consecutiveFailures = 0;
    this.calls.fill(0);
    this.failures.fill(0);
  }

  /** Counts one outcome into the bucket of `nowMs`, clearing the buckets that slid out. */
  private record(nowMs: number, failed: boolean): void {
    if (this.config.failureRatePercent === null) return;
    const epoch = Math.floor(nowMs / this.bucketMs);
    const stale = Math.min(epoch - this.bucketEpoch, WINDOW_BUCKETS);
    for (let i = 1; i <= stale; i++) {
      const index = (this.bucketEpoch + i) % WINDOW_BUCKETS;
      this.calls[index] = 0;
      this.failures[index] = 0;
    }
    if (epoch > this.bucketEpoch) this.bucketEpoch = epoch;
    const index = this.bucketEpoch % WINDOW_BUCKETS;
    this.calls[index]! += 1;
    if (failed) this.failures[index]! += 1;
  }

  private ratioExceeded(): boolean {
    const percent = this.config.failureRatePercent;
    if (percent === null) return false;
    const calls = sum(this.calls);
    return calls >= this.config.minimumCalls && sum(this.failures) * 100 >= percent * calls;
  }

  private ratioReason(): string {
    const calls = sum(this.calls);
    return `${sum(this.failures)} of the last ${calls} publishes failed`;
  }
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
