import type { Logger } from './logger.js';

/**
 * One message as a broker source received it, in the terms the inbox pipeline reads (spec §7.2).
 * The adapter speaks the protocol; the inbox side (filter, extraction, transform, store) is one
 * implementation shared by every broker, handed to the adapter as a `DeliveryHandler`.
 */
export interface SourceDelivery {
  /** The body as received; the inbox decodes and parses it (a non-JSON body is stored dead). */
  readonly body: Uint8Array;
  /**
   * Header name → text, the last value per name, converted by the adapter (§7.6: numbers and
   * booleans in their string form, timestamps as ISO-8601, tables as JSON, bytes as UTF-8 or
   * `base64:`; null values dropped).
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The broker's own attributes, which the chains of §7.2 fall back to. */
  readonly fallbacks: DeliveryFallbacks;
}

export interface DeliveryFallbacks {
  /** After header, expression and path: the broker's own message id or record key. */
  readonly idempotencyKey?: string;
  /** After expression, path and header: the record key, on a broker that has one. */
  readonly aggregateId?: string;
  /** After the `X-Correlation-Id` header: the broker's correlation-id property, if it has one. */
  readonly correlationId?: string;
  /** After header and path: the broker's own time (a message or record timestamp, a stored time). */
  readonly publishTime?: Date;
}

/** What became of one delivery; the adapter settles the broker message by it. */
export type DeliveryVerdict =
  /** Durably handled: ack it, or move the committed offset past it. */
  | { readonly settle: 'ack'; readonly outcome: 'stored' | 'duplicate' | 'dead' | 'filtered' }
  /** Not stored (a storage outage, an unexpected error): requeue, `nak`, or seek back to it. */
  | { readonly settle: 'retry'; readonly reason: string };

/** The inbox side of a broker source: header filter, extraction, source transform, store. */
export interface DeliveryHandler {
  /** Resolves once the delivery's row (if any) is committed; a failure is a `retry`, never a rejection. */
  handle(delivery: SourceDelivery): Promise<DeliveryVerdict>;
  /**
   * The most body bytes the adapter should hold unsettled at once, on top of its count limit
   * (prefetch, batch size): it asks for fewer messages when they are large, and always for at
   * least one. Absent: the adapter's count limit alone.
   */
  readonly inHandBytes?: number;
  /**
   * The largest body the handler stores (`inbox.maxBodyBytes`): until it has seen smaller ones,
   * the adapter assumes messages this large when it sizes its first window.
   */
  readonly maxBodyBytes?: number;
}

export interface SourceConsumerDeps {
  readonly handler: DeliveryHandler;
  readonly logger: Logger;
}

/**
 * One broker source (spec §7.6-§7.8): consumes its queue, topics or stream and hands every
 * delivery to the handler, acknowledging only what the handler reports as durably handled. The app starts consumers after the relay (§17.1 step 10), lists
 * their health after it (§11.4), and stops them first of the background services (§17.2).
 */
export interface SourceConsumer {
  /** `sources.<name>`: the name stored in `inbox.source`. */
  readonly source: string;
  /** The readiness component of §11.4: `<broker kind>.<source>`. */
  readonly healthComponent: string;
  /**
   * Connects and starts consuming. Resolves once deliveries can flow; rejects when they cannot
   * (a missing queue without `declareQueue`, a missing stream), which stops the start. Aborting
   * `signal` is the same as `close()`. A connection lost later is the consumer's to re-establish.
   */
  start(signal?: AbortSignal): Promise<void>;
  /** §11.4: the broker's session is open and its consume, poll or fetch loop runs. */
  isHealthy(): boolean;
  /**
   * Stops taking deliveries, lets those in hand settle (at most 30 s where the spec bounds it,
   * §7.7, §7.8), then closes the connection. Unsettled deliveries return to the broker. Idempotent;
   * never rejects.
   */
  close(): Promise<void>;
}
