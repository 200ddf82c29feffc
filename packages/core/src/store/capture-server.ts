import type { AppConfig } from '../config/app-config.js';
import { QueueBoxError } from '../errors.js';

/** The reference's errors when the settings name no single server (plain errors, retried). */
export const CAPTURE_NEEDS_HOST_AND_DATABASE =
  'Capture requires hostname and database connection settings';
export const CAPTURE_NEEDS_SINGLE_HOST =
  'Set a single capture.connection.hostname for multi-host URLs';

/**
 * The one server and database capture connects to: `outbox.capture.connection.*` where given,
 * else `database.url`'s (a multi-host URL needs a capture hostname). Each dialect adds its port
 * and credentials rules.
 */
export function captureServer(config: AppConfig): { host: string; database: string } {
  const given = config.outbox.capture.connection;
  const hosts = config.database.connection.hosts;
  const host = given.hostname ?? (hosts.length > 1 ? hosts.map((h) => h.host).join(',') : null);
  if (host?.includes(',')) throw new QueueBoxError('config_invalid', CAPTURE_NEEDS_SINGLE_HOST);
  const database = given.database ?? config.database.connection.database;
  if (host === null || host.trim() === '' || database.trim() === '') {
    throw new QueueBoxError('config_invalid', CAPTURE_NEEDS_HOST_AND_DATABASE);
  }
  return { host, database };
}
