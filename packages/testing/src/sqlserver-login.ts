import type { DatabaseConfig } from '@queuebox/core';
import { dialectDatabaseConfig } from './database-config.js';

/** The login a located SQL Server's `sqlserver://user:password@host:port;...` URL carries. */
export interface SqlServerLogin {
  readonly user: string;
  readonly password: string;
  readonly host: string;
  readonly port: number;
}

/** The login of a `sqlserver://` test URL, as `requireService('sqlserver', …)` hands it over. */
export function sqlServerLogin(url: string): SqlServerLogin {
  const m = /^sqlserver:\/\/([^:@]+):([^@]*)@([^:;]+)(?::(\d+))?/.exec(url);
  if (!m) throw new Error('not a sqlserver:// test URL');
  return {
    user: decodeURIComponent(m[1]!),
    password: decodeURIComponent(m[2]!),
    host: m[3]!,
    port: Number(m[4] ?? 1433),
  };
}

/**
 * The `database` block QueueBox's SQL Server migrator needs to migrate `database` on that
 * server over one connection. Local and container servers use a self-signed certificate.
 */
export function sqlServerMigrationConfig(login: SqlServerLogin, database: string): DatabaseConfig {
  return dialectDatabaseConfig(
    {
      type: 'sqlserver',
      port: login.port,
      database,
      username: login.user,
      password: login.password,
      url: (host, port, name) => `jdbc:sqlserver://${host}:${port};databaseName=${name}`,
    },
    {
      host: login.host,
      params: { encrypt: 'false', trustServerCertificate: 'true' },
      poolSize: 1,
    },
  );
}
