import type { AppConfig, CaptureConfig, DatabaseConfig } from '@queuebox/core';

/**
 * An AppConfig with the two blocks capture reads (`database`, `outbox.capture`), shaped as
 * @queuebox/config builds them: the capture connection defaults from the database URL.
 */
export function captureConfigWith(
  database: DatabaseConfig,
  capture: Partial<Omit<CaptureConfig, 'connection'>> & {
    connection?: Partial<CaptureConfig['connection']>;
  } = {},
): AppConfig {
  const first = database.connection.hosts[0];
  const only = database.connection.hosts.length === 1;
  const connection = {
    hostname: only ? (first?.host ?? null) : null,
    port: only ? (first?.port ?? null) : null,
    database: database.connection.database,
    username: database.username,
    password: database.password,
    encrypt: true,
    trustServerCertificate: false,
    ...capture.connection,
  };
  const full: CaptureConfig = {
    mode: 'sqlserver-cdc',
    enabled: true,
    identity: 'queuebox',
    stateDirectory: '/var/lib/queuebox/capture',
    schema: null,
    publication: 'queuebox_outbox',
    slot: 'queuebox_outbox',
    reconciliationIntervalMs: 1000,
    ...capture,
    connection,
  };
  return { database, outbox: { capture: full } } as unknown as AppConfig;
}
