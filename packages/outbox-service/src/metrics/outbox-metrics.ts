import { Counter, Gauge, type Registry } from 'prom-client';
import { createMicrometerTimer, type MicrometerTimer } from './summary-timer.js';

/**
 * The metric families the outbox (poller, HTTP publisher, transforms) and the retention service
 * own, with the names, types and labels of spec §14, so dashboards built on 0.8.1 keep working.
 * Label-less counters and gauges show 0 from the start (as Micrometer registers them at boot);
 * labelled series appear on first use (prom-client's default, and Micrometer's).
 */
export interface OutboxMetrics {
  readonly messages: Counter<'status'>;
  readonly pending: Gauge;
  readonly oldestPendingAgeSeconds: Gauge;
  readonly reclaimed: Counter;
  readonly claimsLost: Counter<'component'>;
  readonly processErrors: Counter;
  readonly processingDuration: MicrometerTimer;
  readonly publishDuration: MicrometerTimer<'destination_type'>;
  readonly destinationMessages: Counter<'destination' | 'outcome'>;
  readonly queueDepth: Gauge<'destination'>;
  readonly httpResponses: Counter<'status_class'>;
  readonly transformFailures: Counter<'strategy'>;
  readonly retention: RetentionMetrics;
}

/** The cleanup families (spec §14), labelled by `table` = `outbox` | `inbox`. */
export interface RetentionMetrics {
  readonly deleted: Counter<'table'>;
  readonly duration: MicrometerTimer<'table'>;
  readonly lastRunTimestamp: Gauge<'table'>;
}

export interface OutboxMetricsOptions {
  /** Milliseconds clock for the `_max` windows; tests pin it. */
  readonly nowMs?: () => number;
}

export function createOutboxMetrics(
  registry: Registry,
  options: OutboxMetricsOptions = {},
): OutboxMetrics {
  const registers = [registry];
  const timer = { nowMs: options.nowMs };
  return {
    messages: new Counter({
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
    claimsLost: claimsLostCounter(registry),
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
    destinationMessages: new Counter({
      name: 'queuebox_outbox_destination_messages_total',
      help: 'Outbox publishes per destination and outcome',
      labelNames: ['destination', 'outcome'],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'queuebox_outbox_queue_depth',
      help: 'Messages currently being published to a destination',
      labelNames: ['destination'],
      registers,
    }),
    httpResponses: new Counter({
      name: 'queuebox_http_publish_responses_total',
      help: 'HTTP destination responses by status class',
      labelNames: ['status_class'],
      registers,
    }),
    transformFailures: new Counter({
      name: 'queuebox_transform_failures_total',
      help: 'Route and destination transform failures by strategy',
      labelNames: ['strategy'],
      registers,
    }),
    retention: {
      deleted: new Counter({
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
      lastRunTimestamp: new Gauge({
        name: 'queuebox_cleanup_last_run_timestamp',
        help: 'Unix seconds of the last retention cleanup run',
        labelNames: ['table'],
        registers,
      }),
    },
  };
}

const CLAIMS_LOST = 'queuebox_claims_lost_total';

/**
 * `queuebox_claims_lost_total{component}` is shared by the outbox poller and the inbox relay,
 * which are wired independently; whichever comes first registers it and the other reuses it.
 */
export function claimsLostCounter(registry: Registry): Counter<'component'> {
  const existing = registry.getSingleMetric(CLAIMS_LOST);
  if (existing instanceof Counter) return existing;
  if (existing) throw new Error(`${CLAIMS_LOST} is already registered with another type`);
  return new Counter({
    name: CLAIMS_LOST,
    help: 'Terminal writes that lost their claim',
    labelNames: ['component'],
    registers: [registry],
  });
}
