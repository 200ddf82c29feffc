import postgres from 'postgres';
import { locateService, serviceRequired, type ServiceLookup } from './services.js';

/**
 * The PostgreSQL of the tests, when it can decode WAL for logical replication (capture needs
 * `wal_level=logical`, which takes a server restart to set; `.ci/run` sets it on this machine).
 * A server at `replica` skips the capture suites with the reason printed, unless
 * QUEUEBOX_TEST_REQUIRE names `postgres-logical` or `postgres`: a CI that requires PostgreSQL
 * must not go green by skipping capture.
 */
export async function requirePostgresLogical(suite: string): Promise<ServiceLookup> {
  const found = await locateLogical();
  if (found.available) return found;
  if (serviceRequired('postgres-logical') || serviceRequired('postgres')) {
    throw new Error(
      `${suite}: QUEUEBOX_TEST_REQUIRE names postgres (or postgres-logical), but ${found.reason}. Set it (ALTER SYSTEM SET wal_level = logical, then restart the server), point QUEUEBOX_TEST_POSTGRES_URL at a server that has it, or remove postgres from QUEUEBOX_TEST_REQUIRE.`,
    );
  }
  console.warn(`SKIPPED ${suite}: ${found.reason}`);
  return found;
}

let cached: Promise<ServiceLookup> | undefined;

function locateLogical(): Promise<ServiceLookup> {
  cached ??= (async () => {
    const found = await locateService('postgres');
    if (!found.available) return found;
    const sql = postgres(found.url, { max: 1, onnotice: () => undefined, connect_timeout: 5 });
    try {
      const [row] = await sql<{ wal_level: string }[]>`SHOW wal_level`;
      const level = row?.wal_level ?? 'unknown';
      if (level === 'logical') return found;
      const where = new URL(found.url);
      return {
        available: false,
        reason: `the PostgreSQL at ${where.hostname}:${where.port || 5432} runs with wal_level=${level}, and capture needs logical`,
      };
    } catch (error: unknown) {
      return {
        available: false,
        reason: `the PostgreSQL found did not answer SHOW wal_level (${error instanceof Error ? error.message : String(error)})`,
      };
    } finally {
      await sql.end({ timeout: 1 });
    }
  })();
  return cached;
}
