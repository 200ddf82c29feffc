import {
  DEFAULT_INBOX_COLUMNS,
  DEFAULT_OUTBOX_COLUMNS,
  Secret,
  type AppConfig,
  type CaptureConfig,
  type DatabaseConfig,
  type InboxColumn,
  type OutboxColumn,
} from '@queuebox/core';

/** What a test overrides of a `database` block; the rest comes from the dialect's defaults. */
export interface DatabaseConfigInput {
  readonly url?: string;
  readonly host?: string;
  readonly port?: number;
  readonly database?: string;
  readonly username?: string;
  readonly password?: string;
  readonly params?: Record<string, string>;
  readonly startupTimeoutMs?: number;
  readonly connectionTimeoutMs?: number;
  readonly poolSize?: number;
  readonly outboxTableName?: string;
  readonly inboxTableName?: string;
  readonly outboxColumns?: Partial<Record<OutboxColumn, string>>;
  readonly inboxColumns?: Partial<Record<InboxColumn, string>>;
}

/** Mapped names for the schema guard's tests: its fix texts must carry them, quoted. */
export const GUARD_MAPPING: DatabaseConfigInput = {
  inboxTableName: 'AppInbox',
  inboxColumns: { headers: 'hdrs' },
  outboxTableName: 'app_outbox',
  outboxColumns: { sequence: 'seq', key: 'stream', state: 'status' },
};

/** A dialect's test defaults: its type, where its test server listens, and its URL form. */
export interface DialectTestDefaults {
  readonly type: DatabaseConfig['type'];
  readonly port: number;
  readonly database: string;
  readonly username: string;
  readonly password: string;
  url(host: string, port: number, database: string): string;
}

/** A `database` block the way @queuebox/config builds it, for a dialect's own tests. */
export function dialectDatabaseConfig(
  dialect: DialectTestDefaults,
  input: DatabaseConfigInput = {},
): DatabaseConfig {
  const host = input.host ?? '127.0.0.1';
  const port = input.port ?? dialect.port;
  const name = input.database ?? dialect.database;
  return {
    type: dialect.type,
    url: input.url ?? dialect.url(host, port, name),
    connection: { hosts: [{ host, port }], database: name, params: input.params ?? {} },
    username: input.username ?? dialect.username,
    password: new Secret(input.password ?? dialect.password),
    poolSize: input.poolSize ?? 4,
    connectionTimeoutMs: input.connectionTimeoutMs ?? 30_000,
    startupTimeoutMs: input.startupTimeoutMs ?? 60_000,
    migrate: true,
    outboxTableName: input.outboxTableName ?? 'outbox',
    inboxTableName: input.inboxTableName ?? 'inbox',
    columnMapping: {
      outbox: { ...DEFAULT_OUTBOX_COLUMNS, ...input.outboxColumns },
      inbox: { ...DEFAULT_INBOX_COLUMNS, ...input.inboxColumns },
    },
  };
}

/** The `database` block with the URL's hosts replaced: a multi-host URL is `withHosts(db, a, b)`. */
export function withHosts(database: DatabaseConfig, ...hosts: string[]): DatabaseConfig {
  const port = database.connection.hosts[0]?.port ?? 0;
  return {
    ...database,
    connection: { ...database.connection, hosts: hosts.map((host) => ({ host, port })) },
  };
}

/** `provider.open` reads only the `database` block; the rest of AppConfig is not needed there. */
export function appConfigWith(database: DatabaseConfig): AppConfig {
  return { database } as unknown as AppConfig;
}

/** What a capture test overrides of the `outbox.capture` block. */
export type CaptureConfigInput = Partial<Omit<CaptureConfig, 'connection'>> & {
  connection?: Partial<CaptureConfig['connection']>;
};

/**
 * An AppConfig with the two blocks capture reads (`database`, `outbox.capture`), shaped as
 * @queuebox/config builds them: the capture connection defaults from the database URL.
 */
export function captureConfigFor(
  mode: CaptureConfig['mode'],
  database: DatabaseConfig,
  capture: CaptureConfigInput = {},
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
    mode,
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

/** A `capture.connection` that overrides every setting the database URL and login give. */
export const CAPTURE_CONNECTION_OVERRIDE = {
  hostname: 'primary',
  port: null,
  database: 'other',
  username: 'capture',
  password: new Secret('cap'),
} as const satisfies CaptureConfigInput['connection'];
