import type { AppConfig, DatabaseConfig } from '@queuebox/core';
import { captureConfigFor, type CaptureConfigInput } from '@queuebox/testing';

/**
 * An AppConfig with the two blocks capture reads (`database`, `outbox.capture`), shaped as
 * @queuebox/config builds them, in the `sqlserver-cdc` mode.
 */
export function captureConfigWith(
  database: DatabaseConfig,
  capture: CaptureConfigInput = {},
): AppConfig {
  return captureConfigFor('sqlserver-cdc', database, capture);
}
