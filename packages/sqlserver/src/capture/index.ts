/**
 * `@queuebox/sqlserver/capture`: the capture provider of `outbox.capture.mode: sqlserver-cdc`
 * (spec §10), which the app finds through its provider registry under the mode's name. It polls
 * the outbox table's CDC change table (counts per operation, never the rows) and owns the SQL of
 * the ownership lock, the registry row and the preflight; the loop around them (backoff, health,
 * wakes) is `@queuebox/capture`'s. It never enables CDC: the operator does (docs/sqlserver.md).
 */
import type { CaptureProvider } from '@queuebox/core';
import { createSqlServerCaptureSource } from './capture-session.js';

export { createSqlServerCaptureSource, type SqlServerCaptureOptions } from './capture-session.js';
export { captureLockResource, captureSql } from './capture-sql.js';
export { openChangeTablePoller, pollResultOf } from './change-table-poller.js';
export {
  CAPTURE_NEEDS_HOST_AND_DATABASE,
  CAPTURE_NEEDS_SINGLE_HOST,
  captureConnectionConfig,
  captureConnectionSettings,
  captureFingerprintLines,
  captureSchema,
} from './connection-settings.js';
export {
  CaptureInstanceGone,
  compareLsn,
  lsnOf,
  LsnCursor,
  ZERO_LSN,
  type Lsn,
} from './lsn-cursor.js';
export {
  CDC_NOT_ENABLED_ON_DATABASE,
  CDC_NOT_ENABLED_ON_TABLE,
  preflightTarget,
} from './preflight.js';

export const provider: CaptureProvider = {
  kind: 'capture',
  name: 'sqlserver-cdc',
  createCaptureSource: (config) => createSqlServerCaptureSource(config),
};
