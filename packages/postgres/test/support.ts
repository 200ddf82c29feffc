import { connect, createServer, type Server, type Socket } from 'node:net';
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
 * Test support for this package's tests: a DatabaseConfig the way @queuebox/config would build
 * it, and (from @queuebox/testing) a Logger that records its lines.
 */
export interface DatabaseConfigInput {
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
  const port = input.port ?? 5432;
  const name = input.database ?? 'test';
  return {
    type: 'postgresql',
    url: `jdbc:postgresql://${host}:${port}/${name}`,
    connection: { hosts: [{ host, port }], database: name, params: input.params ?? {} },
    username: input.username ?? 'postgres',
    password: new Secret(input.password ?? ''),
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

// The one recording logger is @queuebox/testing's; re-exported so this package's tests keep one
// place to import their support from.
export { recordingLogger, type LogLine, RecordingLogger } from '@queuebox/testing';

/** The settings of a fresh test database as QueueBox's `database` block. */
export function configFor(
  fresh: {
    readonly url: string;
    readonly host: string;
    readonly port: number;
    readonly name: string;
    readonly user: string;
  },
  input: DatabaseConfigInput = {},
): DatabaseConfig {
  return databaseConfig({
    host: fresh.host,
    port: fresh.port,
    database: fresh.name,
    username: fresh.user,
    password: decodeURIComponent(new URL(fresh.url).password),
    ...input,
  });
}

/** `provider.open` reads only the `database` block; the rest of AppConfig is not needed here. */
export function appConfigWith(database: DatabaseConfig): AppConfig {
  return { database } as unknown as AppConfig;
}

/** A TCP port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Forwards every connection on `listenPort` to `target`, like a database that came up late. */
export function startForwarder(
  listenPort: number,
  target: { host: string; port: number },
): Promise<Server> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', () => resolve(server));
  });
}
