import type { DestinationType } from '../config/app-config.js';
import type { RetentionTable } from './retention-store.js';

/**
 * Metrics: the handles services count through. The app defines every family once (name, help,
 * type, label names of spec §14, on its one Prometheus registry) and hands each service the
 * narrow bundle below; a service never names a family and never sees the Prometheus client
 * library. Label shapes carry the spec's fixed enumerations, so a label value outside them does
 * not compile.
 * In-memory handles for tests live in @queuebox/testing.
 */

/** The label values of one series, by label name. */
export type LabelValues = Readonly<Record<string, string>>;

export interface Counter {
  inc(amount?: number): void;
}

/**
 * `child` resolves the series of one label set once, for a caller that counts it per message:
 * its calls then skip finding the series by its label values.
 */
export interface LabeledCounter<L extends LabelValues> {
  inc(labels: L, amount?: number): void;
  child(labels: L): Counter;
}

export interface Gauge {
  set(value: number): void;
}

/** One series of a labelled gauge, resolved once (`LabeledGauge.child`). */
export interface GaugeSeries {
  set(value: number): void;
  inc(amount?: number): void;
  dec(amount?: number): void;
}

export interface LabeledGauge<L extends LabelValues> {
  set(labels: L, value: number): void;
  inc(labels: L, amount?: number): void;
  dec(labels: L, amount?: number): void;
  child(labels: L): GaugeSeries;
}

/** A duration in seconds (a Micrometer-style timer in the scrape: summary plus `_max`). */
export interface Timer {
  observe(seconds: number): void;
  /** Starts a measurement; calling the result records the elapsed seconds and returns them. */
  startTimer(): () => number;
}

export interface LabeledTimer<L extends LabelValues> {
  observe(seconds: number, labels: L): void;
  startTimer(labels: L): () => number;
  child(labels: L): Timer;
}

/** `status_class` of `queuebox_http_publish_responses_total`. */
export type HttpStatusClass = '1xx' | '2xx' | '3xx' | '4xx' | '5xx' | 'other';
/** `strategy` of `queuebox_transform_failures_total`: the `onError` of the failed stage. */
export type TransformFailureStrategy = 'fail' | 'skip' | 'dead';
/** `reason` of `queuebox_inbox_rejections_total`. */
export type InboxRejectionReason = 'extraction_failed' | 'transform_failed' | 'storage_failed';

/** The outbox poller, the HTTP publisher's responses and the outbox transforms (spec §4, §14). */
export interface OutboxMetrics {
  readonly messages: LabeledCounter<{ status: 'sent' | 'failed' | 'dead' }>;
  readonly pending: Gauge;
  readonly oldestPendingAgeSeconds: Gauge;
  readonly reclaimed: Counter;
  /** `queuebox_claims_lost_total`, shared with the relay; the poller's series. */
  readonly claimsLost: LabeledCounter<{ component: 'outbox' }>;
  readonly processErrors: Counter;
  readonly processingDuration: Timer;
  readonly publishDuration: LabeledTimer<{ destination_type: DestinationType }>;
  readonly destinationMessages: LabeledCounter<{
    destination: string;
    outcome: 'success' | 'failure';
  }>;
  readonly queueDepth: LabeledGauge<{ destination: string }>;
  readonly httpResponses: LabeledCounter<{ status_class: HttpStatusClass }>;
  readonly transformFailures: LabeledCounter<{ strategy: TransformFailureStrategy }>;
}

/** The retention service, for both tables (spec §17.4). */
export interface RetentionMetrics {
  readonly deleted: LabeledCounter<{ table: RetentionTable }>;
  readonly duration: LabeledTimer<{ table: RetentionTable }>;
  readonly lastRunTimestamp: LabeledGauge<{ table: RetentionTable }>;
}

/** The inbox's receiving side: HTTP routes and, later, broker sources (spec §7). */
export interface InboxMetrics {
  /** `queuebox_inbox_messages_total`, shared with the relay (`forwarded`). */
  readonly messages: LabeledCounter<{ status: 'new' | 'duplicate' }>;
  readonly rejections: LabeledCounter<{ reason: InboxRejectionReason }>;
  readonly filtered: LabeledCounter<{ source: string }>;
}

/** The inbox relay (spec §8). */
export interface RelayMetrics {
  readonly messages: LabeledCounter<{ status: 'forwarded' }>;
  readonly relayErrors: Counter;
  readonly oldestPendingAgeSeconds: Gauge;
  readonly claimsLost: LabeledCounter<{ component: 'inbox' }>;
}

/** Every bundle, as the app builds them; a family two bundles share is one handle. */
export interface Metrics {
  readonly outbox: OutboxMetrics;
  readonly retention: RetentionMetrics;
  readonly inbox: InboxMetrics;
  readonly relay: RelayMetrics;
}
