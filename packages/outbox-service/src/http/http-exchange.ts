/**
 * One POST on a pooled connection through undici's `dispatch` with a handler of our own, instead
 * of `request()`: no response stream, no AbortController and no promise per body, because this
 * runs once per message (the publish path costs noticeably less per message this way). What it
 * keeps: a time budget over the whole exchange (a place in the destination's deadline queue, not
 * a timer of its own), cancellation by the caller's claim (a listener slot on the claim when the
 * request offers one, else the caller's signal), a success
 * body discarded up to a bound (past it the socket is closed rather than drained), an error body
 * kept up to a bound for the failure text.
 *
 * Every error undici raises, thrown from `dispatch` or reported later, ends this one exchange
 * with a failure text; a request undici refused to build also has the pool replaced (see
 * destination-pool.ts), since the refusal cost the pool a connection.
 */
import type { Dispatcher } from 'undici';
import {
  DeadlineEntry,
  DeadlineQueue,
  sanitize,
  unwatchClaim,
  watchClaim,
  type CancelListener,
  type ClaimCancel,
} from '@queuebox/core';
import { describeNetworkError } from './deadline.js';
import type { DestinationPool } from './destination-pool.js';

export type Exchange =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly body: Uint8Array;
      /** The `Retry-After` of a 429 or 503, as sent; null otherwise. */
      readonly retryAfter: string | null;
    }
  | { readonly kind: 'error'; readonly text: string };

export interface ExchangeRequest {
  readonly path: string;
  readonly headers: string[];
  readonly body: string | Uint8Array;
  /** The budget over the whole exchange; `deadlines` keeps it when given (its own budget). */
  readonly timeoutMs: number;
  /** The destination's queue of budgets: one timer for all its requests. */
  readonly deadlines?: DeadlineQueue;
  /** The caller's cancellation (the poller aborts work whose claim was lost), if no `cancel`. */
  readonly signal?: AbortSignal | undefined;
  /**
   * The same from a publish request: its listener slot when it has one, else its signal.
   */
  readonly cancel?: ClaimCancel;
  /** Error-body bytes worth keeping: a longer body is cut off and its socket closed. */
  readonly maxErrorBytes: number;
}

/** Bytes a success response may carry before the socket is closed instead of drained. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
const EMPTY = new Uint8Array(0);

type Controller = Dispatcher.DispatchController;
/**
 * undici's codes for a request it will not build (`new Request` in its client): an invalid
 * header, path or method, or an option it does not support (`Expect`).
 */
const REFUSAL_CODES: ReadonlySet<unknown> = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
]);

class ExchangeHandler extends DeadlineEntry implements Dispatcher.DispatchHandler, CancelListener {
  private controller: Controller | null = null;
  private status = 0;
  private retryAfter: string | null = null;
  private received = 0;
  private chunks: Buffer[] | null = null;
  private done = false;
  private why: 'timeout' | 'cancelled' | null = null;
  private readonly cancel: ClaimCancel;

  constructor(
    private readonly request: ExchangeRequest,
    private readonly deadlines: DeadlineQueue,
    private readonly settle: (exchange: Exchange) => void,
    private readonly onRefused: () => void,
  ) {
    super();
    deadlines.add(this);
    this.cancel = request.cancel ?? { signal: request.signal };
    if (!watchClaim(this.cancel, this)) this.stop('cancelled');
  }

  expire(): void {
    this.stop('timeout');
  }

  cancelled(): void {
    this.stop('cancelled');
  }

  onRequestStart(controller: Controller): void {
    this.controller = controller;
    // Stopped while the request waited for a socket: it never goes out.
    if (this.why !== null) controller.abort(new Error(this.why));
  }

  onResponseStart(
    _controller: Controller,
    statusCode: number,
    headers?: Record<string, string | string[] | undefined>,
  ): void {
    this.status = statusCode;
    if (statusCode < 200 || statusCode > 299) this.chunks = [];
    // Only the two statuses that ask the sender to wait (RFC 9110 §10.2.3) are read.
    if ((statusCode === 429 || statusCode === 503) && headers !== undefined) {
      const value = headers['retry-after'];
      this.retryAfter = (Array.isArray(value) ? value[0] : value) ?? null;
    }
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    this.received += chunk.length;
    if (this.chunks !== null) {
      this.chunks.push(chunk);
      // Enough for the failure text: the rest is not worth downloading.
      if (this.received > this.request.maxErrorBytes) controller.abort(new Error('body cut off'));
    } else if (this.received > DRAIN_LIMIT_BYTES) {
      controller.abort(new Error('body cut off'));
    }
  }

  onResponseEnd(): void {
    this.finish(this.response());
  }

  onResponseError(_controller: Controller, error: Error): void {
    // Before a socket was given, an argument error means undici refused to build the request.
    if (this.controller === null && REFUSAL_CODES.has((error as { code?: unknown }).code))
      this.onRefused();
    this.finish(this.status !== 0 ? this.response() : { kind: 'error', text: this.explain(error) });
  }

  /**
   * Once the status line is in, the outcome is the response: a 2xx whose body then breaks or
   * times out is still a delivery the receiver accepted (failing it would send a duplicate on
   * retry), and an error status keeps whatever part of its body arrived.
   */
  private response(): Exchange {
    const body = this.chunks === null ? EMPTY : Buffer.concat(this.chunks, this.received);
    return { kind: 'response', status: this.status, body, retryAfter: this.retryAfter };
  }

  private stop(why: 'timeout' | 'cancelled'): void {
    if (this.done) return;
    this.why = why;
    this.controller?.abort(new Error(why));
    // Do not wait for undici: a request still queued for a socket has no controller yet.
    this.finish(this.status !== 0 ? this.response() : { kind: 'error', text: this.explain(null) });
  }

  private explain(error: unknown): string {
    if (this.why === 'timeout') return `Request timeout after ${this.deadlines.budgetMs}ms`;
    if (this.why === 'cancelled') return 'Publish cancelled: the claim on the message was lost';
    return `Publish failed: ${sanitize(describeNetworkError(error))}`;
  }

  private finish(exchange: Exchange): void {
    if (this.done) return;
    this.done = true;
    this.deadlines.remove(this);
    unwatchClaim(this.cancel, this);
    this.settle(exchange);
  }
}

export function exchange(pool: DestinationPool, request: ExchangeRequest): Promise<Exchange> {
  const dispatcher = pool.dispatcher;
  return new Promise<Exchange>((resolve) => {
    const deadlines = request.deadlines ?? new DeadlineQueue(request.timeoutMs);
    const handler = new ExchangeHandler(request, deadlines, resolve, () =>
      pool.replace(dispatcher),
    );
    try {
      dispatcher.dispatch(
        { path: request.path, method: 'POST', headers: request.headers, body: request.body },
        handler,
      );
    } catch (error: unknown) {
      // undici reports most errors to the handler; a closed pool or a bad handler throws.
      handler.onResponseError(
        null as unknown as Controller,
        error instanceof Error ? error : new Error(String(error)),
      );
    }
  });
}
