/**
 * The inbox counters of spec §14 that the ingest path changes. The relay changes
 * `queuebox_inbox_messages_total{status="forwarded"}` on the same family, and the routes and the
 * relay are wired independently, so every family here is get-or-create on the one registry.
 * Labelled series appear on first use, as Micrometer showed them.
 */
import { Counter, type Registry } from 'prom-client';

export interface InboxMetrics {
  /** `status` = `new` | `duplicate` (ingest) | `forwarded` (relay). */
  readonly messages: Counter<'status'>;
  /** `reason` = `extraction_failed` | `transform_failed` | `storage_failed`. */
  readonly rejections: Counter<'reason'>;
  /** `source` = the source name of a header-filter drop. */
  readonly filtered: Counter<'source'>;
}

export function inboxMetrics(registry: Registry): InboxMetrics {
  return {
    messages: getOrCreateCounter(
      registry,
      'queuebox_inbox_messages_total',
      'Inbox messages: new (stored), duplicate (dedup hit), forwarded (relay success)',
      'status',
    ),
    rejections: getOrCreateCounter(
      registry,
      'queuebox_inbox_rejections_total',
      'Inbox messages refused: missing key, transform rejection, store error',
      'reason',
    ),
    filtered: getOrCreateCounter(
      registry,
      'queuebox_inbox_filtered_total',
      'Inbox messages dropped by a source header filter',
      'source',
    ),
  };
}

/** Returns the counter registered under `name`, or registers it; refuses a same-named metric of another shape. */
export function getOrCreateCounter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  label: L,
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing === undefined)
    return new Counter({ name, help, labelNames: [label], registers: [registry] });
  if (!(existing instanceof Counter))
    throw new Error(`${name} is already registered with another type`);
  // prom-client keeps the label names on the instance but does not type them.
  const labels = (existing as unknown as { labelNames?: readonly string[] }).labelNames ?? [];
  if (labels.length !== 1 || labels[0] !== label) {
    throw new Error(
      `${name} is already registered with the labels [${labels.join(', ')}], not [${label}]`,
    );
  }
  return existing;
}
