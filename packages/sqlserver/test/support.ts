import {
  DEFAULT_INBOX_COLUMNS,
  DEFAULT_OUTBOX_COLUMNS,
  Secret,
  type AppConfig,
  type DatabaseConfig,
  type InboxColumn,
  type OutboxColumn,
} from '@queuebox/core';

/**
 * Test support for this package: a SQL Server `database` block the way @queuebox/config builds
 * it from a `jdbc:sqlserver://` URL (host, port, database, and the URL's other properties).
 */
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

export function databaseConfig(input: DatabaseConfigInput = {}): DatabaseConfig {
  const host = input.host ?? '127.0.0.1';
  const port = input.port ?? 1433;
  const name = input.database ?? 'queuebox';
  return {
    type: 'sqlserver',
    url: input.url ?? `jdbc:sqlserver://${host}:${port};databaseName=${name}`,
    connection: { hosts: [{ host, port }], database: name, params: input.params ?? {} },
    username: input.username ?? 'sa',
    password: new Secret(input.password ?? 'QueueBox_Test_1'),
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

/** `provider.open` reads only the `database` block; the rest of AppConfig is not needed here. */
export function appConfigWith(database: DatabaseConfig): AppConfig {
  return { database } as unknown as AppConfig;
}
