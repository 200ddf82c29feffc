import { captureServer, type AppConfig, type Secret } from '@queuebox/core';

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

export { CAPTURE_NEEDS_HOST_AND_DATABASE, CAPTURE_NEEDS_SINGLE_HOST } from '@queuebox/core';

/**
 * Host, port and database from `database.url` unless `outbox.capture.connection.*` overrides
 * them; the credentials default to the database's (the config loader filled those in).
 */
export function captureConnectionSettings(config: AppConfig): CaptureConnectionSettings {
  const given = config.outbox.capture.connection;
  const hosts = config.database.connection.hosts;
  const { host, database } = captureServer(config);
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
