import { randomBytes } from 'node:crypto';
import type { DatabaseConfig } from '@queuebox/core';
import { connectionConfig, createPool, type SqlServerPool } from '@queuebox/sqlserver';
import { databaseConfig } from '../support.js';

/**
 * A database of its own for one contract run, on the SQL Server that @queuebox/testing located
 * (`sqlserver://user:password@host:port;databaseName=master`, from QUEUEBOX_TEST_SQLSERVER_URL, a
 * local port or testcontainers). Dropped after the run.
 */
export interface FreshSqlServer {
  readonly config: DatabaseConfig;
  readonly pool: SqlServerPool;
  /** Another pool on the same database: a second replica. */
  newPool(size: number): SqlServerPool;
  drop(): Promise<void>;
}

export function parseTestUrl(url: string): {
  host: string;
  port: number;
  username: string;
  password: string;
} {
  const match = /^sqlserver:\/\/([^:@]+):([^@]*)@([^:;]+)(?::(\d+))?/.exec(url);
  if (!match) throw new Error(`not a sqlserver:// test URL: ${url.replace(/:[^@]*@/, ':***@')}`);
  return {
    username: decodeURIComponent(match[1]!),
    password: decodeURIComponent(match[2]!),
    host: match[3]!,
    port: Number(match[4] ?? 1433),
  };
}

export async function createFreshSqlServer(url: string): Promise<FreshSqlServer> {
  const server = parseTestUrl(url);
  const name = `qb_test_${randomBytes(6).toString('hex')}`;
  // Local and container servers use a self-signed certificate.
  const params = { encrypt: 'false', trustServerCertificate: 'true' };
  const master = createPool(
    connectionConfig(databaseConfig({ ...server, database: 'master', params })),
    1,
    30_000,
  );
  await master.withSession((session) =>
    session.run({ text: `CREATE DATABASE [${name}]`, params: [] }),
  );
  const config = databaseConfig({ ...server, database: name, params });
  const newPool = (size: number) => createPool(connectionConfig(config), size, 30_000);
  const pool = newPool(4);
  return {
    config,
    pool,
    newPool,
    async drop() {
      await pool.close();
      await master.withSession((session) =>
        session.run({
          text: `ALTER DATABASE [${name}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [${name}]`,
          params: [],
        }),
      );
      await master.close();
    },
  };
}
