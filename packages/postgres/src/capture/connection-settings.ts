import { QueueBoxError, type AppConfig, type Secret } from '@queuebox/core';

/** Where the replication connection goes (spec §10.1 "Connector settings"). */
export interface CaptureConnectionSettings {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly username: string;
  readonly password: Secret;
  /** `database.url`'s query parameters (`sslmode` among them), as the pool reads them. */
  readonly params: Readonly<Record<string, string>>;
}

const DEFAULT_PORT = 5432;

/** The reference's errors when the settings name no single server (plain errors, retried). */
export const CAPTURE_NEEDS_HOST_AND_DATABASE =
  'Capture requires hostname and database connection settings';
export const CAPTURE_NEEDS_SINGLE_HOST =
  'Set a single capture.connection.hostname for multi-host URLs';

/**
 * Host, port and database from `database.url` unless `outbox.capture.connection.*` overrides
 * them; the credentials default to the database's (the config loader filled those in).
 */
export function captureConnectionSettings(config: AppConfig): CaptureConnectionSettings {
  const given = config.outbox.capture.connection;
  const hosts = config.database.connection.hosts;
  const host = given.hostname ?? (hosts.length > 1 ? hosts.map((h) => h.host).join(',') : null);
  if (host?.includes(',')) throw new QueueBoxError('config_invalid', CAPTURE_NEEDS_SINGLE_HOST);
  const database = given.database ?? config.database.connection.database;
  if (host === null || host.trim() === '' || database.trim() === '') {
    throw new QueueBoxError('config_invalid', CAPTURE_NEEDS_HOST_AND_DATABASE);
  }
  return {
    host,
    port: given.port ?? hosts.find((h) => h.host === host)?.port ?? DEFAULT_PORT,
    database,
    username: given.username ?? config.database.username,
    password: given.password ?? config.database.password,
    params: config.database.connection.params,
  };
}

/** The schema of the outbox table as capture names it (`public` unless configured). */
export function captureSchema(config: AppConfig): string {
  return config.outbox.capture.schema ?? 'public';
}

/**
 * The fingerprint lines of spec §10.1, as the reference's Debezium settings spelled them, so a
 * row QueueBox 0.8.1 registered compares equal when nothing changed. `table.include.list` is
 * Kotlin's `Regex.escape` (`\Q...\E`) of `<schema>.<table>`.
 */
export function captureFingerprintLines(
  config: AppConfig,
  settings: CaptureConnectionSettings,
): string[] {
  const capture = config.outbox.capture;
  return [
    'connector.class=io.debezium.connector.postgresql.PostgresConnector',
    `database.hostname=${settings.host}`,
    `database.port=${settings.port}`,
    `database.dbname=${settings.database}`,
    'database.names=',
    `table.include.list=\\Q${captureSchema(config)}.${config.database.outboxTableName}\\E`,
    `slot.name=${capture.slot}`,
    `publication.name=${capture.publication}`,
  ];
}
