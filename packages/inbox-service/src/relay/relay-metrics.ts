import { Counter, Gauge, type Registry } from 'prom-client';
import { inboxMetrics } from '../ingest/metrics.js';

/**
 * The metric families the relay changes (spec §14). Every one is get-or-create on the injected
 * registry: `queuebox_inbox_messages_total` is shared with the ingest routes and
 * `queuebox_claims_lost_total` with the outbox poller, each wired independently, and whichever
 * comes first registers the family with the same name, help and labels.
 */
export interface RelayMetrics {
  /** `{status="forwarded"}` is the relay's series. */
  readonly messages: Counter<'status'>;
  readonly relayErrors: Counter;
  readonly oldestPendingAgeSeconds: Gauge;
  /** `{component="inbox"}` is the relay's series. */
  readonly claimsLost: Counter<'component'>;
}

export const RELAY_ERRORS = 'queuebox_inbox_relay_errors_total';
export const OLDEST_PENDING_AGE = 'queuebox_inbox_oldest_pending_age_seconds';
export const CLAIMS_LOST = 'queuebox_claims_lost_total';

export function relayMetrics(registry: Registry): RelayMetrics {
  return {
    messages: inboxMetrics(registry).messages,
    relayErrors: getOrCreate(
      registry,
      RELAY_ERRORS,
      Counter,
      () =>
        new Counter({
          name: RELAY_ERRORS,
          help: 'Relay cycle errors, forward failures and empty-topic dead letters',
          registers: [registry],
        }),
    ),
    oldestPendingAgeSeconds: getOrCreate(
      registry,
      OLDEST_PENDING_AGE,
      Gauge,
      () =>
        new Gauge({
          name: OLDEST_PENDING_AGE,
          help: 'Age of the oldest pending inbox message (push and pull) in seconds (0 when none)',
          registers: [registry],
        }),
    ),
    claimsLost: getOrCreate<Counter<'component'>>(
      registry,
      CLAIMS_LOST,
      Counter,
      // The help and labels of the outbox poller's registration (outbox-service), word for word.
      () =>
        new Counter({
          name: CLAIMS_LOST,
          help: 'Terminal writes that lost their claim',
          labelNames: ['component'],
          registers: [registry],
        }),
    ),
  };
}

function getOrCreate<M>(
  registry: Registry,
  name: string,
  type: abstract new (...args: never[]) => M,
  create: () => M,
): M {
  const existing = registry.getSingleMetric(name);
  if (existing === undefined) return create();
  if (!(existing instanceof type))
    throw new Error(`${name} is already registered with another type`);
  return existing;
}
