import type { DestinationType } from '../config/app-config.js';
import { QueueBoxError } from '../errors.js';
import type { HeaderEntry } from '../header-precedence.js';
import type { JsonPayload } from '../json-payload.js';
import type { Headers, OutboxMessage } from '../model.js';

/** What the router resolved for one row, handed to the publisher of its destination. */
export interface PublishRequest {
  readonly message: OutboxMessage;
  readonly destination: string;
  /**
   * The payload after the route and destination transforms; the row's own payload (its stored
   * text, sent as it is) when no transform ran.
   */
  readonly payload: JsonPayload;
  /** The broker's routing or record key, when the route or destination set one. */
  readonly routingKey: string | null;
  /** The broker's exchange, topic or subject, resolved from the template or column. */
  readonly address: string | null;
  readonly signal: AbortSignal;
  /**
   * The publish span's W3C trace context, present only while tracing is on: the publisher sends
   * these and no other `traceparent`/`tracestate` (a row's, a static or an auth copy is dropped;
   * core's `TRACE_HEADERS`).
   */
  readonly traceHeaders?: readonly HeaderEntry[];
  /**
   * The same cancellation as `signal` without an AbortController, an event listener and its
   * garbage per message: `listener.cancelled(reason)` runs once if the claim is lost while the
   * listener is registered. Returns false (registering nothing) when the claim is already lost.
   * Optional: a caller that has no claim leaves it out, and the publisher reads `signal`.
   */
  readonly watchCancel?: (listener: CancelListener) => boolean;
  /** Unregisters a listener of `watchCancel`; a no-op when it is not registered. */
  readonly unwatchCancel?: (listener: CancelListener) => void;
}

/** What `PublishRequest.watchCancel` calls when the claim on the message is lost. */
export interface CancelListener {
  cancelled(reason: unknown): void;
}

/**
 * A failure carries the classified error: its `message` is the text the row's `last_error` and
 * the logs show, its `code` and `retryable` what the publisher's classifier said. `retryable:
 * false` says the destination refused the message itself (too large, a name it cannot carry), so
 * sending it again as it is fails the same way. Every failed publish still takes the same path, a
 * retry while the row has attempts left and dead after that (spec §4.5): the flag informs, it
 * does not yet decide.
 */
export type PublishOutcome =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly error: QueueBoxError;
      /**
       * The destination said when to come back (a 429 or 503 with `Retry-After`), in ms from
       * the answer. Only a destination's circuit breaker reads it.
       */
      readonly retryAfterMs?: number;
    };

/**
 * A failure the publisher did not get from its client (a timeout, a closed publisher, an HTTP
 * answer): transient unless `retryable` says the message itself was refused.
 */
export function publishFailed(text: string, retryable = true): QueueBoxError {
  return new QueueBoxError('publish_failed', text, { retryable });
}

/** Sends one message to one kind of destination. One publisher per destination type. */
export interface Publisher {
  readonly type: DestinationType;
  /** Whether this publisher serves the named destination. */
  supports(destination: string): boolean;
  publish(request: PublishRequest): Promise<PublishOutcome>;
  close(): Promise<void>;
}

export type { Headers };
