/**
 * A store call that settles within a bound, the rule of the PostgreSQL inbox store (docs/
 * decisions.md, "Every inbox store statement settles within a bound"): a broker delivery is acked
 * or requeued only when its store call settles, and one grouped insert is in flight at a time, so
 * a call that never settles would jam every message of every source.
 *
 * tedious bounds each request itself (REQUEST_TIMEOUT_MS, then its cancel timeout, after which it
 * closes the connection), and the pool bounds a borrow by `database.connectionTimeoutMs`. The
 * bound here is the sum of those, so it fires only when the driver fails to keep its own: then
 * the call fails as a transient `database_unavailable` and the caller retries, while the request
 * keeps its connection borrowed until tedious ends it (the pool never hands out a connection with
 * a request on it). What the call does if it ran after all is safe to repeat: an insert of the same
 * key is a duplicate, the relay's writes are fenced by the claim token.
 */
import { settleWithin as settleWithinBound } from '@queuebox/core';
import { REQUEST_TIMEOUT_MS } from './connection-options.js';

/** tedious's default `cancelTimeout`: how long an attention (cancel) may wait for its answer. */
const CANCEL_TIMEOUT_MS = 5_000;

/** A borrow or a connect, then one request and its cancel. */
export function callBoundMs(connectionTimeoutMs: number): number {
  return connectionTimeoutMs + REQUEST_TIMEOUT_MS + CANCEL_TIMEOUT_MS;
}

/** Core's statement deadline with the bound this package derives from tedious's timeouts. */
export function settleWithin<T>(call: Promise<T>, boundMs: number): Promise<T> {
  return settleWithinBound(
    call,
    boundMs,
    `within ${boundMs} ms (database.connectionTimeoutMs plus the driver's request and cancel timeouts)`,
  );
}
