import type { ClaimedOutboxMessage, NewOutboxMessage } from '../model.js';

/** A fenced write: the claim token it was made under, and what to write. */
export interface Fence {
  readonly id: string;
  readonly claimToken: string;
}

export type OutboxCompletion =
  | { readonly kind: 'sent'; readonly fence: Fence }
  | { readonly kind: 'retry'; readonly fence: Fence; readonly delayMs: number; readonly error: string }
  | { readonly kind: 'dead'; readonly fence: Fence; readonly error: string };

export interface OutboxGauges {
  readonly pending: number;
  readonly oldestPendingAgeSeconds: number;
}

export interface ReplayFilter {
  readonly ids?: readonly string[] | null;
  readonly topics?: readonly string[] | null;
  readonly createdAfter?: Date | null;
  readonly createdBefore?: Date | null;
}

/**
 * The outbox table. Every claim, fence and lease rule is SQL inside the adapter, so it holds
 * across replicas; the service only decides what to write.
 */
export interface OutboxStore {
  /** Key-ordered claim of up to `limit` due rows under a DB-clock lease of `leaseMs`. */
  claim(limit: number, leaseMs: number): Promise<ClaimedOutboxMessage[]>;
  /**
   * Fenced terminal writes, possibly batched. Returns the ids whose fence held; a missing id
   * lost its claim and nothing was written for it.
   */
  complete(completions: readonly OutboxCompletion[]): Promise<Set<string>>;
  /** Extends the leases of the fenced rows; returns the ids still owned. */
  renew(fences: readonly Fence[], leaseMs: number): Promise<Set<string>>;
  /** Returns expired processing rows to pending; returns how many. */
  reclaimExpired(): Promise<number>;
  gauges(): Promise<OutboxGauges>;
  insert(messages: readonly NewOutboxMessage[]): Promise<void>;
  distinctTopics(): Promise<string[]>;
  replay(filter: ReplayFilter): Promise<number>;
}
