import type {
  RelayClaimedMessage,
  NewInboxMessage,
  NewOutboxMessage,
  StoreResult,
} from '../model.js';
import type { Fence } from './outbox-store.js';

export interface StoreOptions {
  /** Added to `LEAST(DB now, publishTime)` (or DB now) for `scheduled_at`, in milliseconds. */
  readonly initialDelayMs: number;
  /** `storeDead` of spec §7.4: the row is written in state `dead`, never claimable. */
  readonly dead?: boolean;
  /**
   * Why a dead row is dead, stored in `last_error` (sanitized by the caller): a broker message
   * that can never be stored as it came. Ignored unless `dead`.
   */
  readonly lastError?: string;
}

/**
 * One relay forward: the claimed inbox row and the outbox row built from it (spec §8.3). The
 * outbox payload is the stored inbox payload (the relay runs no transform): the adapter copies
 * it from the row it marks.
 */
export interface RelayForward {
  readonly fence: Fence;
  readonly outbox: Omit<NewOutboxMessage, 'payload'>;
}

/**
 * The inbox table. Deduplication is the unique constraint on (source, idempotency_key); every
 * claim, fence and lease rule is SQL inside the adapter.
 */
export interface InboxStore {
  /**
   * Stores one message once per (source, idempotency key). Resolves only after the row is
   * committed (an adapter may group concurrent stores into one commit). A failure rejects with
   * a QueueBoxError classified where it arose: `retryable: false` (`storage_rejected`) when the
   * database refuses the message itself, which no retry changes (a poison message);
   * `retryable: true` when a retry can succeed (connection lost, timeout, conflict).
   */
  store(message: NewInboxMessage, options: StoreOptions): Promise<StoreResult>;

  /**
   * Relay claim (spec §8.2, batched): due push rows, at most one per aggregate_id, none of an
   * aggregate that already has a processing row, in (scheduled_at, created_at) order, under a
   * DB-clock lease. Serialised across replicas by the reference's advisory lock.
   */
  claimForRelay(limit: number, leaseMs: number): Promise<RelayClaimedMessage[]>;
  /**
   * In ONE transaction: fenced `processed` marks and the outbox inserts of the rows whose fence
   * held. Returns those inbox ids; a lost claim writes no outbox row.
   */
  forward(forwards: readonly RelayForward[]): Promise<Set<string>>;
  /** Fenced `dead` marks (empty topic). Returns the ids whose fence held. */
  markDead(fences: readonly Fence[]): Promise<Set<string>>;
  renew(fences: readonly Fence[], leaseMs: number): Promise<Set<string>>;
  /** Expired processing rows back to pending (spec §8.1 step 1); returns how many. */
  reclaimExpired(): Promise<number>;
  /** DB now − MIN(created_at) over pending rows of both consumption modes; 0 when none. */
  oldestPendingAgeSeconds(): Promise<number>;
}
