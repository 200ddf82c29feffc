import type { AppConfig, CaptureMode } from '../config/app-config.js';
import type { Logger } from './logger.js';

/**
 * Change data capture (spec §10): a database's change feed on the outbox table, which only
 * wakes the poller. The capture service (`@queuebox/capture`) runs the loop (ownership,
 * registry, backoff, health, wakes); a database adapter supplies the session and the feed
 * (its logical replication or its change tables).
 */

/** What one change to the outbox table was; capture wakes on `insert` and `unreadable`. */
export type ChangeKind = 'insert' | 'update' | 'delete' | 'unreadable';

export interface ChangeListener {
  /** Called for every change to the outbox table, in commit order. Must not throw. */
  onChange(kind: ChangeKind): void;
}

/** An open change feed. */
export interface ChangeStream {
  /**
   * Settles when the feed ends: resolves when `close()` ended it, rejects with the reason when
   * the connection failed or went silent.
   */
  readonly ended: Promise<void>;
  close(): Promise<void>;
}

/** The ownership lock attempt of spec §10.1 step 3. */
export type LockAttempt =
  | { readonly held: true }
  /** `holder`: the database session that holds the lock, when the database says. */
  | { readonly held: false; readonly holder: string | null };

/** A row of `queuebox_capture_state` (spec §3.4). */
export interface CaptureRegistration {
  readonly identity: string;
  readonly stateId: string;
  readonly fingerprint: string;
}

/** A durable replication slot left where capture now uses temporary ones (QueueBox 0.8.1's). */
export interface DurableSlot {
  readonly name: string;
  /** True while some session reads it. */
  readonly active: boolean;
  /** WAL the server keeps for it; 0 when it no longer holds any (invalidated). */
  readonly retainedBytes: number;
}

/**
 * One capture run's database session (spec §10.1 steps 2-5), on the application's database
 * with its credentials. The ownership lock is the session's: it ends with the session.
 */
export interface CaptureSession {
  /** The database's name for this session (such as a backend pid), to recognise it later. */
  readonly id: string;
  /**
   * The settings whose change the reference treated as a different capture (§10.1,
   * fingerprint), as `key=value` lines in the reference's order. Secrets never enter it.
   */
  readonly fingerprintLines: readonly string[];
  /** Takes the ownership lock of the identity without waiting. */
  tryLock(): Promise<LockAttempt>;
  /** True when the session still answers within `timeoutMs` and is the one that took the lock. */
  alive(timeoutMs: number): Promise<boolean>;
  /**
   * Ends another session of this same source that still holds the lock after its connection
   * was lost on our side (a half-open connection the server has not noticed). True when ended.
   */
  endStaleSession(id: string): Promise<boolean>;
  registration(identity: string): Promise<CaptureRegistration | null>;
  /** Inserts the row; a row that appeared meanwhile is kept as it is. */
  register(registration: CaptureRegistration): Promise<void>;
  /** The plain (retried) preflight errors: publication missing, capture not enabled. */
  preflight(): Promise<void>;
  /** Durable slots of the configured name (a leftover of an earlier capture), when the adapter has slots. */
  durableSlots?(): Promise<DurableSlot[]>;
  /** Opens the change feed; resolves once it streams. */
  openStream(listener: ChangeListener): Promise<ChangeStream>;
  /** Releases the lock and ends the session. Never throws. */
  close(): Promise<void>;
}

/** One capture source per configured mode, built once; `open()` starts each run. */
export interface CaptureSource {
  /** Opens a session; throws the reference's settings errors (hostname, multi-host). */
  open(): Promise<CaptureSession>;
}

export interface CaptureSourceDeps {
  readonly logger: Logger;
}

/**
 * What a database package exports as `provider` from its capture entry, found through the
 * app's provider registry under the mode's name.
 */
export interface CaptureProvider {
  readonly kind: 'capture';
  readonly name: Exclude<CaptureMode, 'polling'>;
  createCaptureSource(config: AppConfig, deps: CaptureSourceDeps): CaptureSource;
}

/**
 * How hard the outbox poller works, as capture needs to know it: while the poller claims rows
 * so fast that it loops without waiting anyway, capture's wakes add nothing but their cost
 * (the server decodes every outbox change for them), so capture closes its feed and opens it
 * again once the load falls (`ClaimLoad` in core is the poller's).
 */
export interface DeliveryLoad {
  /** True while the poller claims at least a full batch in each window (see ClaimLoad). */
  readonly busy: boolean;
  /** `listener` runs on every change of `busy`; the returned function unsubscribes. */
  onChange(listener: (busy: boolean) => void): () => void;
}
