import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/**
 * A PostgreSQL database of one's own: each test file creates one, so files run in parallel and
 * leave nothing behind.
 */
export interface FreshDatabase {
  /** postgres:// URL of the new database. */
  readonly url: string;
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** The same database as QueueBox's `database.url` expects it. */
  readonly jdbcUrl: string;
  /** A small postgres.js client on the database, for setting up and observing. */
  readonly sql: postgres.Sql;
  drop(): Promise<void>;
}

export async function createFreshDatabase(
  serverUrl: string,
  prefix = 'qb_test',
): Promise<FreshDatabase> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const parsed = new URL(serverUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  const sql = postgres(url, { max: 4, onnotice: () => undefined });
  const host = parsed.hostname;
  const port = Number(parsed.port || 5432);
  const user = decodeURIComponent(parsed.username || 'postgres');
  return {
    url,
    name,
    host,
    port,
    user,
    jdbcUrl: `jdbc:postgresql://${host}:${port}/${name}`,
    sql,
    async drop() {
      await sql.end({ timeout: 5 });
      const cleanup = postgres(serverUrl, { max: 1, onnotice: () => undefined });
      try {
        await cleanup.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/** A separate pool on a test database: a second replica in concurrency tests. */
export function testPool(url: string, max = 3): postgres.Sql {
  return postgres(url, { max, onnotice: () => undefined });
}
