import type { ClaimedOutboxMessage, NewOutboxMessage } from '../model.js';

/** A fenced write: the claim token it was made under, and what to write. */
export interface Fence {
  readonly id: string;
  readonly claimToken: string;
}

/**
 * One terminal write of a claimed row (spec §4.4). `retry` is the only write that increments
 * `attempt`; `sent` leaves the claim columns as they are.
 */
export type OutboxCompletion =
  | { readonly kind: 'sent'; readonly fence: Fence }
  | {
      readonly kind: 'retry';
      readonly fence: Fence;
      readonly delayMs: number;
      readonly error: string;
    }
  | { readonly kind: 'dead'; readonly fence: Fence; readonly error: string };

export interface OutboxGauges {
  readonly pending: number;
  /** DB now − MIN(created_at) over pending rows; 0 when none. */
  readonly oldestPendingAgeSeconds: number;
}

/**
 * The replay filter of spec §11.6, after the admin layer resolved `topic` and `destination` into
 * `topics`. Present fields are ANDed; absent/null fields are ignored; an explicitly empty `ids`
 * or `topics` list matches nothing. `state IN ('sent','dead')` always applies.
 */
export interface ReplayFilter {
  readonly ids?: readonly string[] | null;
  readonly topics?: readonly string[] | null;
  /** Strictly after. */
  readonly createdAfter?: Date | null;
  /** Strictly before. */
  readonly createdBefore?: Date | null;
}

/**
 * Rows whose topic matches `pattern` and none of `unless` (topic globs of spec §5.1, whole
 * topic): the rows that route to one destination by one route, given the routes before it.
 */
export interface PassOverRule {
  readonly pattern: string;
  readonly unless: readonly string[];
}

/**
 * What one claim leaves alone: rows matching any `passOver` rule stay pending, unclaimed and
 * untouched (a destination with no capacity now). A store that cannot filter on the topic
 * ignores it; the poller then hands such rows back (`release`) before any publish.
 */
export interface ClaimOptions {
  readonly passOver: readonly PassOverRule[];
}

/**
 * The outbox table. Every claim, fence and lease rule is SQL inside the adapter, so it holds
 * across replicas; the service only decides what to write. "App now" is the injected Clock,
 * "DB now" the database clock (spec §3.7).
 */
export interface OutboxStore {
  /**
   * Key-ordered claim of up to `limit` due rows (spec §4.2) under a DB-clock lease of `leaseMs`,
   * sorted by (scheduled_at, created_at). Requires `limit > 0` and `1 <= leaseMs <= 2^31-1`.
   * `options.passOver` (see ClaimOptions) leaves the rows of blocked destinations pending.
   */
  claim(limit: number, leaseMs: number, options?: ClaimOptions): Promise<ClaimedOutboxMessage[]>;
  /**
   * Fenced terminal writes, one statement for the whole batch. Returns the ids whose fence held;
   * a missing id lost its claim and nothing was written for it.
   */
  complete(completions: readonly OutboxCompletion[]): Promise<Set<string>>;
  /** Extends the leases of the fenced rows to DB now + `leaseMs`; returns the ids still owned. */
  renew(fences: readonly Fence[], leaseMs: number): Promise<Set<string>>;
  /** Returns processing rows whose lease expired (or is NULL) to pending; returns how many. */
  reclaimExpired(): Promise<number>;
  gauges(): Promise<OutboxGauges>;
  /** Multi-row insert in array order (so `sequence` follows it); never writes `sequence`. */
  insert(messages: readonly NewOutboxMessage[]): Promise<void>;
  distinctTopics(): Promise<string[]>;
  /** Moves matching sent/dead rows back to pending (spec §11.6); returns how many. */
  replay(filter: ReplayFilter): Promise<number>;
  /**
   * Fenced hand-back of claimed rows that never started (shutdown): pending again with
   * `claimed_at` NULL, `attempt` and `scheduled_at` unchanged. Returns the ids whose fence held.
   */
  release?(fences: readonly Fence[]): Promise<Set<string>>;
  /**
   * Capture modes (spec §4.1 step 7): ms until the nearest pending `scheduled_at` (app clock) or
   * processing `lease_expires_at` (DB clock), clamped to `[1, maxMs]`.
   */
  nextWakeDelayMs?(maxMs: number): Promise<number>;
}
