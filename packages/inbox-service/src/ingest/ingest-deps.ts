import type { Clock, InboxMetrics, InboxStore, Logger, Transformer } from '@queuebox/core';

/** What an ingest, HTTP or broker, stores through, transforms with, reports to and reads. */
export interface IngestDeps {
  readonly store: InboxStore;
  readonly transformer: Transformer;
  readonly logger: Logger;
  readonly metrics: InboxMetrics;
  readonly clock: Clock;
  /** New inbox row ids and fallback correlation ids: random UUIDs. */
  readonly newId: () => string;
}
