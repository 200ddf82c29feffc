import { connect, createServer, type Server, type Socket } from 'node:net';
import { QueueBoxError, type DatabaseConfig } from '@queuebox/core';
import { expect } from 'vitest';
import {
  dialectDatabaseConfig,
  startFaultProxy,
  type DatabaseConfigInput,
  type FaultProxy,
  type FreshDatabase,
} from '@queuebox/testing';
import postgres from 'postgres';

/**
 * Test support for this package's tests: a DatabaseConfig the way @queuebox/config would build
 * it, and (from @queuebox/testing) a Logger that records its lines.
 */
export function databaseConfig(input: DatabaseConfigInput = {}): DatabaseConfig {
  return dialectDatabaseConfig(
    {
      type: 'postgresql',
      port: 5432,
      database: 'test',
      username: 'postgres',
      password: '',
      url: (host, port, name) => `jdbc:postgresql://${host}:${port}/${name}`,
    },
    input,
  );
}

// The one recording logger and the `database` block's helpers are @queuebox/testing's;
// re-exported so this package's tests keep one place to import their support from.
export { recordingLogger, type LogLine, RecordingLogger } from '@queuebox/testing';
export { appConfigWith, type DatabaseConfigInput } from '@queuebox/testing';

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

/** A TCP port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export { freePort as closedPort } from '@queuebox/testing';

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

/**
 * A postgres.js client of its own (one connection, 1 s connect timeout) through a fault proxy in
 * front of `db`, so a cut reaches nobody else. `connect` is the driver (postgres.js 3 or 4).
 */
export async function clientThroughProxy(
  db: FreshDatabase,
  options: postgres.Options<Record<string, never>> = {},
  connect: typeof postgres = postgres,
): Promise<{ sql: postgres.Sql; proxy: FaultProxy }> {
  const proxy = await startFaultProxy({ target: { host: db.host, port: db.port } });
  const sql = connect({
    host: proxy.host,
    port: proxy.port,
    database: db.name,
    username: db.user,
    max: 1,
    connect_timeout: 1,
    onnotice: () => undefined,
    ...options,
  });
  return { sql, proxy };
}

/** The QueueBoxError `work` fails with; the test fails when it succeeds. */
export async function queueBoxFailure(work: Promise<unknown>): Promise<QueueBoxError> {
  try {
    await work;
  } catch (error: unknown) {
    expect(error).toBeInstanceOf(QueueBoxError);
    return error as QueueBoxError;
  }
  throw new Error('expected a QueueBoxError');
}
