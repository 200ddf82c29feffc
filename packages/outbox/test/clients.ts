import { drizzle } from 'drizzle-orm/node-postgres';
import knexFactory from 'knex';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import postgres from 'postgres';
import type { OutboxHandle } from '../src/index.js';

/**
 * One application client library, opened on a test database: `transaction` lends the
 * library's own transaction handle to the callback and commits, or rolls back when the
 * callback throws, the way an application uses that library.
 */
export interface TestClient {
  readonly kind: 'postgres.js' | 'pg' | 'knex' | 'drizzle' | 'kysely';
  transaction<T>(work: (db: OutboxHandle) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export const CLIENT_KINDS = ['postgres.js', 'pg', 'knex', 'drizzle', 'kysely'] as const;

export function openClient(kind: TestClient['kind'], url: string): TestClient {
  switch (kind) {
    case 'postgres.js': {
      const sql = postgres(url, { max: 2, onnotice: () => undefined });
      return {
        kind,
        transaction: async (work) => await sql.begin((tx) => work(tx)),
        close: () => sql.end({ timeout: 5 }),
      };
    }
    case 'pg': {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      return {
        kind,
        async transaction(work) {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            const result = await work(client);
            await client.query('COMMIT');
            return result;
          } catch (error: unknown) {
            await client.query('ROLLBACK');
            throw error;
          } finally {
            client.release();
          }
        },
        close: () => pool.end(),
      };
    }
    case 'knex': {
      const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
      return {
        kind,
        transaction: (work) => knex.transaction((trx) => work(trx)),
        close: () => knex.destroy(),
      };
    }
    case 'drizzle': {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      const db = drizzle(pool);
      return {
        kind,
        transaction: (work) => db.transaction((tx) => work(tx)),
        close: () => pool.end(),
      };
    }
    case 'kysely': {
      const db = new Kysely<unknown>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }),
      });
      return {
        kind,
        transaction: (work) => db.transaction().execute((trx) => work(trx)),
        close: () => db.destroy(),
      };
    }
  }
}
