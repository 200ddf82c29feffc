import { captureServer, type AppConfig } from '@queuebox/core';
import type { ConnectionConfiguration } from 'tedious';
import { connectionConfig } from '../connection/connection-options.js';

export { CAPTURE_NEEDS_HOST_AND_DATABASE, CAPTURE_NEEDS_SINGLE_HOST } from '@queuebox/core';

/** Where the change-table reader connects (spec §10.1 "Connector settings", SQL Server). */
export interface CaptureConnectionSettings {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly username: string;
}

/** The schema of the outbox table as capture names it (`dbo` unless configured). */
export function captureSchema(config: AppConfig): string {
  return config.outbox.capture.schema ?? 'dbo';
}

export function captureConnectionSettings(config: AppConfig): CaptureConnectionSettings {
  const given = config.outbox.capture.connection;
  const hosts = config.database.connection.hosts;
  const { host, database } = captureServer(config);
  const same = hosts.find((h) => h.host === host);
  // The loader fills capture.connection.port from the URL; a port that differs was set for capture.
  const explicitPort = given.port !== null && given.port !== same?.port;
  return {
    host,
    port: explicitPort && given.port !== null ? given.port : (same?.port ?? 1433),
    database,
    username: given.username ?? config.database.username,
  };
}

/**
 * tedious options of the reader: the database connection's (URL properties, UTC, timeouts) with
 * host, port, database and login from `outbox.capture.connection.*`, and its own `encrypt` and
 * `trustServerCertificate` (spec §10: default true and false, as the reference's connector had
 * them, whatever the URL says). An instance name in the URL still finds the port unless
 * capture names a port or another host.
 */
export function captureConnectionConfig(config: AppConfig): ConnectionConfiguration {
  const given = config.outbox.capture.connection;
  const settings = captureConnectionSettings(config);
  const base = connectionConfig(config.database);
  const first = config.database.connection.hosts[0];
  const keepInstance =
    settings.host === first?.host &&
    settings.port === first.port &&
    base.options?.instanceName !== undefined;
  const { instanceName: _instance, port: _port, ...options } = base.options ?? {};
  return {
    server: settings.host,
    authentication: {
      type: 'default',
      options: {
        userName: settings.username,
        password: (given.password ?? config.database.password).reveal(),
      },
    },
    options: {
      ...options,
      ...(keepInstance ? { instanceName: base.options?.instanceName } : { port: settings.port }),
      database: settings.database,
      encrypt: given.encrypt,
      trustServerCertificate: given.trustServerCertificate,
    },
  };
}

/**
 * The fingerprint lines of spec §10.1 as the reference's Debezium SQL Server connector spelled
 * them (`database.names`, not `database.dbname`; no slot or publication), so a row QueueBox 0.8.1
 * registered compares equal when nothing changed. `table.include.list` is Kotlin's
 * `Regex.escape` (`\Q...\E`) of `<schema>.<table>`.
 */
export function captureFingerprintLines(config: AppConfig): string[] {
  const settings = captureConnectionSettings(config);
  return [
    'connector.class=io.debezium.connector.sqlserver.SqlServerConnector',
    `database.hostname=${settings.host}`,
    `database.port=${settings.port}`,
    'database.dbname=',
    `database.names=${settings.database}`,
    `table.include.list=\\Q${captureSchema(config)}.${config.database.outboxTableName}\\E`,
    'slot.name=',
    'publication.name=',
  ];
}
