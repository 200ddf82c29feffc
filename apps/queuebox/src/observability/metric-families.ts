import type { Metrics } from '@queuebox/core';
import {
  Counter,
  Gauge,
  type CounterConfiguration,
  type GaugeConfiguration,
  type Registry,
} from './prom.js';
import { deferredCounter, deferredGauge } from './deferred-series.js';
import { createMicrometerTimer } from './summary-timer.js';

/**
 * Every family the services report to, defined once: the names, types, help texts and labels of
 * spec §14, so dashboards built on 0.8.1 keep working (apps/queuebox/test pins the scrape). The
 * services get core's narrow handles and never see prom-client; a family two services share
 * (`queuebox_claims_lost_total`, `queuebox_inbox_messages_total`) is one object handed to both.
 * Label-less counters and gauges show 0 from the start (as Micrometer registers them at boot);
 * labelled series appear on first use (prom-client's default, and Micrometer's).
 */
export interface MetricFamiliesOptions {
  /** Milliseconds clock for the `_max` windows of the timers; tests pin it. */
  readonly nowMs?: () => number;
}

export function registerMetricFamilies(
  registry: Registry,
  options: MetricFamiliesOptions = {},
): Metrics {
  const registers = [registry];
  const timer = { nowMs: options.nowMs };
  const claimsLost = labelledCounter({
    name: 'queuebox_claims_lost_total',
    help: 'Terminal writes that lost their claim',
    labelNames: ['component'],
    registers,
  });
  // Counted per message: deferred to the scrape (deferred-series.ts says why).
  const inboxMessages = deferredCounter({
    name: 'queuebox_inbox_messages_total',
    help: 'Inbox messages: new (stored), duplicate (dedup hit), forwarded (relay success)',
    labelNames: ['status'],
    registers,
  });
  return {
    outbox: {
      messages: deferredCounter({
        name: 'queuebox_outbox_messages_total',
        help: 'Outbox messages by outcome: sent, failed (retry scheduled) or dead',
        labelNames: ['status'],
        registers,
      }),
      pending: new Gauge({
        name: 'queuebox_outbox_messages_pending',
        help: 'Pending outbox messages',
        registers,
      }),
      oldestPendingAgeSeconds: new Gauge({
        name: 'queuebox_outbox_oldest_pending_age_seconds',
        help: 'Age of the oldest pending outbox message in seconds (0 when none)',
        registers,
      }),
      reclaimed: new Counter({
        name: 'queuebox_outbox_messages_reclaimed_total',
        help: 'Outbox messages returned to pending because their lease expired',
        registers,
      }),
      claimsLost,
      processErrors: new Counter({
        name: 'queuebox_outbox_process_errors_total',
        help: 'Exceptions that stopped the processing of one outbox message',
        registers,
      }),
      processingDuration: createMicrometerTimer(registry, {
        ...timer,
        name: 'queuebox_outbox_processing_duration_seconds',
        help: 'Time to process one outbox message',
      }),
      publishDuration: createMicrometerTimer(registry, {
        ...timer,
        name: 'queuebox_outbox_publish_duration_seconds',
        help: 'Time of one publish to a destination',
        labelNames: ['destination_type'],
      }),
      destinationMessages: deferredCounter({
        name: 'queuebox_outbox_destination_messages_total',
        help: 'Outbox publishes per destination and outcome',
        labelNames: ['destination', 'outcome'],
        registers,
      }),
      queueDepth: deferredGauge({
        name: 'queuebox_outbox_queue_depth',
        help: 'Messages currently being published to a destination',
        labelNames: ['destination'],
        registers,
      }),
      // Counted per message too.
      httpResponses: deferredCounter({
        name: 'queuebox_http_publish_responses_total',
        help: 'HTTP destination responses by status class',
        labelNames: ['status_class'],
        registers,
      }),
      transformFailures: labelledCounter({
        name: 'queuebox_transform_failures_total',
        help: 'Route and destination transform failures by strategy',
        labelNames: ['strategy'],
        registers,
      }),
    },
    retention: {
      deleted: labelledCounter({
        name: 'queuebox_cleanup_messages_deleted_total',
        help: 'Rows deleted by retention cleanup',
        labelNames: ['table'],
        registers,
      }),
      duration: createMicrometerTimer(registry, {
        ...timer,
        name: 'queuebox_cleanup_duration_seconds',
        help: 'Duration of one retention cleanup run',
        labelNames: ['table'],
      }),
      lastRunTimestamp: labelledGauge({
        name: 'queuebox_cleanup_last_run_timestamp',
        help: 'Unix seconds of the last retention cleanup run',
        labelNames: ['table'],
        registers,
      }),
    },
    inbox: {
      messages: inboxMessages,
      rejections: labelledCounter({
        name: 'queuebox_inbox_rejections_total',
        help: 'Inbox messages refused: missing key, transform rejection, store error',
        labelNames: ['reason'],
        registers,
      }),
      filtered: labelledCounter({
        name: 'queuebox_inbox_filtered_total',
        help: 'Inbox messages dropped by a source header filter',
        labelNames: ['source'],
        registers,
      }),
    },
    relay: {
      messages: inboxMessages,
      relayErrors: new Counter({
        name: 'queuebox_inbox_relay_errors_total',
        help: 'Relay cycle errors, forward failures and empty-topic dead letters',
        registers,
      }),
      oldestPendingAgeSeconds: new Gauge({
        name: 'queuebox_inbox_oldest_pending_age_seconds',
        help: 'Age of the oldest pending inbox message (push and pull) in seconds (0 when none)',
        registers,
      }),
      claimsLost,
    },
  };
}

/** A prom-client counter as core's handle: `child` is prom-client's own `labels()`. */
function labelledCounter<L extends string>(configuration: CounterConfiguration<L>) {
  const counter = new Counter<L>(configuration);
  return {
    inc(labels: Readonly<Record<L, string>>, amount?: number): void {
      counter.inc(labels, amount);
    },
    child: (labels: Readonly<Record<L, string>>) => counter.labels(labels),
  };
}

/** A prom-client gauge as core's handle: `child` is prom-client's own `labels()`. */
function labelledGauge<L extends string>(configuration: GaugeConfiguration<L>) {
  const gauge = new Gauge<L>(configuration);
  return {
    set(labels: Readonly<Record<L, string>>, value: number): void {
      gauge.set(labels, value);
    },
    inc(labels: Readonly<Record<L, string>>, amount?: number): void {
      gauge.inc(labels, amount);
    },
    dec(labels: Readonly<Record<L, string>>, amount?: number): void {
      gauge.dec(labels, amount);
    },
    child: (labels: Readonly<Record<L, string>>) => gauge.labels(labels),
  };
}
