import { QueueBoxError, type DatabaseConfig } from '@queuebox/core';
import postgres from 'postgres';

/**
 * The postgres.js pool that stands where the reference had HikariCP. Only the first host of the
 * URL is used. URL parameters are read the way pgjdbc reads them where postgres.js has an
 * equivalent (`sslmode`, `ssl`, `currentSchema`, `ApplicationName`); others are ignored.
 */
export function poolOptions(database: DatabaseConfig): postgres.Options<Record<string, never>> {
  const first = database.connection.hosts[0];
  if (!first) {
    throw new QueueBoxError(
      'config_invalid',
      "'database.url' names no host, so QueueBox cannot connect.",
    );
  }
  const params = database.connection.params;
  const connection: Record<string, string> = {
    application_name: params.ApplicationName ?? 'queuebox',
  };
  // pgjdbc's currentSchema becomes the session's search_path, so "the default schema" (where
  // the history table and the migrations go) is the same one the reference used.
  if (params.currentSchema !== undefined) connection.search_path = params.currentSchema;
  return {
    host: first.host,
    port: first.port,
    database: database.connection.database,
    username: database.username,
    // A function keeps the clear text out of the options object that postgres.js exposes as
    // `sql.options`, and an empty password cannot fall through to PGPASSWORD.
    password: () => database.password.reveal(),
    max: database.poolSize,
    // postgres.js counts seconds; never round a short timeout down to "none".
    connect_timeout: Math.max(1, Math.ceil(database.connectionTimeoutMs / 1000)),
    ssl: sslFrom(params),
    backoff: reconnectDelaySeconds,
    onnotice: () => undefined,
    connection,
  };
}

/**
 * Seconds before a closed connection reconnects, by the pool's count of failed attempts: 50 ms
 * doubling to 1 s, with jitter. postgres.js's own delay grows to 10-20 s, and its count only
 * resets on a success, so after a database blip of a second or two every query waited that
 * long for its connection (seen with the fault proxy: the poller stood still that long after the
 * database was back). One attempt a second per pool connection costs the server nothing.
 */
export function reconnectDelaySeconds(failedAttempts: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** failedAttempts, 1);
}

export function createPool(database: DatabaseConfig): postgres.Sql {
  return postgres(poolOptions(database));
}

type SslOption = postgres.Options<Record<string, never>>['ssl'];

/** pgjdbc's TLS settings in postgres.js terms; pgjdbc's default is `prefer`. */
export function sslFrom(params: Readonly<Record<string, string>>): SslOption {
  const mode = params.sslmode;
  if (mode === undefined) {
    // pgjdbc: `ssl=true` without sslmode means full verification.
    if (params.ssl !== undefined) return params.ssl === 'false' ? false : 'verify-full';
    return 'prefer';
  }
  switch (mode) {
    case 'disable':
      return false;
    case 'allow':
    case 'prefer':
    case 'require':
    case 'verify-full':
      return mode;
    case 'verify-ca':
      // The certificate chain is checked, the host name is not.
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    default:
      throw new QueueBoxError(
        'config_invalid',
        `'database.url' has sslmode=${mode}; use disable, allow, prefer, require, verify-ca or verify-full.`,
      );
  }
}
