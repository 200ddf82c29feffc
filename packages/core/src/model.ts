import type { JsonPayload } from './json-payload.js';
import type { Consumption, InboxState, OutboxState } from './states.js';

/** JSON as it travels through QueueBox: payloads are objects or arrays, transforms may return any. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Message headers: one string value per name, as stored in the `headers` JSON column. */
export type Headers = Record<string, string>;

/** One outbox row as the poller sees it after a claim. */
export interface OutboxMessage {
  readonly id: string;
  readonly topic: string;
  readonly key: string | null;
  readonly aggregateType: string | null;
  /** The payload as the database holds it (`payload::text`), parsed only if a transform runs. */
  readonly payload: JsonPayload;
  readonly headers: Headers;
  readonly state: OutboxState;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly scheduledAt: Date;
  readonly createdAt: Date;
  readonly sequence: bigint | null;
  readonly lastError: string | null;
}

/** A claimed outbox row: the token fences every later write on it. */
export interface ClaimedOutboxMessage extends OutboxMessage {
  readonly claimToken: string;
}

/** What an application (or the relay) writes into the outbox. */
export interface NewOutboxMessage {
  readonly id?: string;
  readonly topic: string;
  readonly key?: string | null;
  readonly aggregateType?: string | null;
  readonly payload: Json;
  readonly headers?: Headers;
  readonly maxAttempts?: number;
  readonly scheduledAt?: Date;
}

/** What an inbox row holds from its receipt on: a new message and a stored row alike. */
export interface InboxMessageFields {
  readonly id: string;
  readonly source: string;
  readonly idempotencyKey: string;
  readonly aggregateId: string | null;
  readonly eventType: string | null;
  readonly payload: JsonPayload;
  readonly headers: Headers;
  readonly correlationId: string | null;
  readonly consumption: Consumption;
}

/** One inbox row. */
export interface InboxMessage extends InboxMessageFields {
  readonly state: InboxState;
  readonly createdAt: Date;
  readonly scheduledAt: Date;
  readonly attempt: number;
}

export interface ClaimedInboxMessage extends InboxMessage {
  readonly claimToken: string;
}

/**
 * A push row as the relay claims it: everything but the payload. The relay runs no transform
 * (spec §8.3), so the forward copies the stored payload inside the database; carrying the
 * payload out and back in was a large share of what the relay spends per row.
 */
export type RelayClaimedMessage = Omit<ClaimedInboxMessage, 'payload'>;

/** A message a source accepted, before it is stored. */
export interface NewInboxMessage extends InboxMessageFields {
  /**
   * The received JSON text when no source transform ran (stored as the database parses it, so
   * no number passes through a double), else the transform's result.
   */
  readonly payload: JsonPayload;
  /** Publish time read from the message; the store takes LEAST(DB now, publishTime). */
  readonly publishTime: Date | null;
}

export type StoreResult = { readonly kind: 'stored' } | { readonly kind: 'duplicate' };
