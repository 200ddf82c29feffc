/**
 * `@queuebox/postgres/capture`: the capture provider of `outbox.capture.mode: postgres-logical`
 * (spec §10), which the app finds through its provider registry under the mode's name. It owns
 * the replication client (pgoutput on a temporary slot) and the SQL of the ownership lock, the
 * registry row and the preflight; the loop around them (backoff, health, wakes) is
 * `@queuebox/capture`'s.
 */
import type { CaptureProvider } from '@queuebox/core';
import { createPostgresCaptureSource } from './capture-session.js';

export { createPostgresCaptureSource, type PostgresCaptureOptions } from './capture-session.js';
export { captureLockKey } from './capture-sql.js';
export {
  CAPTURE_NEEDS_HOST_AND_DATABASE,
  CAPTURE_NEEDS_SINGLE_HOST,
  captureConnectionSettings,
  captureFingerprintLines,
} from './connection-settings.js';

export const provider: CaptureProvider = {
  kind: 'capture',
  name: 'postgres-logical',
  createCaptureSource: (config) => createPostgresCaptureSource(config),
};
