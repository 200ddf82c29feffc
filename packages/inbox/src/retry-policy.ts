import type { InboxMessage } from './message.js';

/** What happens to a message whose handler failed. */
export type InboxFailureAction =
  { readonly type: 'retry'; readonly delayMs: number } | { readonly type: 'deadLetter' };

/** Decides, from the message (its `attempt` counts earlier failures) and the failure. */
export type InboxRetryPolicy = (message: InboxMessage, failure: unknown) => InboxFailureAction;

export interface DefaultRetryPolicyOptions {
  /** Dead letter once `attempt` reaches this (attempt starts at 0): default 5, six deliveries. */
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** A uniform offset of ±(delay × jitter): default 0.2. */
  readonly jitter?: number;
}

/** Retry after `delayMs` (a finite number ≥ 0, rounded). */
export function retryAfter(delayMs: number): InboxFailureAction {
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
    throw new RangeError('The delay must not be negative.');
  }
  return Object.freeze({ type: 'retry', delayMs: Math.round(delayMs) });
}

/** No retry: the message is dead-lettered with its error. */
export function deadLetter(): InboxFailureAction {
  return DEAD_LETTER;
}

const DEAD_LETTER: InboxFailureAction = Object.freeze({ type: 'deadLetter' });

/**
 * Exponential backoff: dead letter when `attempt >= maxAttempts`, else
 * `min(base × 2^min(attempt, 30), max)` with ±jitter, clamped at 0. The exponent cap keeps a
 * huge attempt count from overflowing to Infinity. (The server's own outbox backoff differs:
 * base × 2^attempt + 0-25 %, capped at 60 s.)
 */
export function defaultRetryPolicy(options: DefaultRetryPolicyOptions = {}): InboxRetryPolicy {
  const maxAttempts = options.maxAttempts ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 300_000;
  const jitter = options.jitter ?? 0.2;
  if (!Number.isInteger(maxAttempts))
    throw new RangeError('The maxAttempts must be a whole number.');
  if (maxAttempts <= 0) throw new RangeError('The maxAttempts must be positive.');
  if (!(baseDelayMs >= 0) || !Number.isFinite(baseDelayMs)) {
    throw new RangeError('The baseDelayMs must not be negative.');
  }
  if (!(maxDelayMs >= baseDelayMs)) {
    throw new RangeError('The maxDelayMs must not be below the baseDelayMs.');
  }
  if (!(jitter >= 0 && jitter <= 1))
    throw new RangeError('The jitter must be between zero and one.');
  return (message) => {
    if (message.attempt >= maxAttempts) return deadLetter();
    const delay = Math.min(baseDelayMs * 2 ** Math.min(message.attempt, 30), maxDelayMs);
    const offset = jitter > 0 ? delay * jitter * (Math.random() * 2 - 1) : 0;
    return retryAfter(Math.max(0, delay + offset));
  };
}
