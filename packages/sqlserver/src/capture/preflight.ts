import { QueueBoxError } from '@queuebox/core';

/** The reference's two preflight texts (spec §10.1): plain errors, retried with the backoff. */
export const CDC_NOT_ENABLED_ON_DATABASE = 'Change data capture is not enabled on this database.';
export const CDC_NOT_ENABLED_ON_TABLE = 'Change data capture is not enabled on the outbox table.';

/** A row of `captureSql.captureInstances`. */
export interface CaptureInstanceRow {
  readonly captureInstance: string;
  readonly changeTable: string;
  readonly sourceSchema: string;
}

/** The capture instance the feed reads, once the preflight passed. */
export interface CaptureTarget {
  readonly captureInstance: string;
  readonly changeTable: string;
}

/**
 * The preflight decision. `instances` are the outbox table's capture instances by table name,
 * newest first (the query the reference ran matched the name alone); the one in the configured
 * schema is read (`outbox.capture.schema`, `dbo` unless set). A table of the same name in another
 * schema does not count: its changes would never be the outbox's.
 */
export function preflightTarget(
  databaseEnabled: boolean,
  instances: readonly CaptureInstanceRow[],
  schema: string,
): CaptureTarget {
  if (!databaseEnabled) throw new QueueBoxError('startup_failed', CDC_NOT_ENABLED_ON_DATABASE);
  const own = instances.find((row) => row.sourceSchema.toLowerCase() === schema.toLowerCase());
  if (own === undefined) throw new QueueBoxError('startup_failed', CDC_NOT_ENABLED_ON_TABLE);
  return { captureInstance: own.captureInstance, changeTable: own.changeTable };
}
