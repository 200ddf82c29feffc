/**
 * @queuebox/capture: the capture service of spec §10 (`outbox.capture.enabled`). It runs one
 * loop per process around a database's change feed: the ownership lock of the identity, the
 * registry row, the preflight, restarts with a backoff of 1 s doubling to 30 s, the health flag
 * of the advisory component `outbox-capture`, and the wakes of the outbox poller (on every
 * start and end, and on every insert).
 *
 * It imports no driver: the feed and its SQL come from a database package through core's
 * `CaptureSource` port (PostgreSQL's logical replication today, SQL Server's CDC tables
 * later). It never claims, writes or skips an outbox row; SQL claims stay the truth.
 */
export { CaptureBackoff } from './capture-backoff.js';
export {
  CaptureService,
  type CaptureFeedState,
  type CaptureMetrics,
  type CaptureServiceOptions,
  type CaptureTimings,
} from './capture-service.js';
export { captureFingerprint } from './fingerprint.js';
export { captureLogTexts } from './log-texts.js';
