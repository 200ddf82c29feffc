import { randomUUID } from 'node:crypto';
import {
  JsonPayload,
  QueueBoxError,
  silentLogger,
  systemClock,
  type NewInboxMessage,
} from '@queuebox/core';
import {
  createFreshDatabase,
  requireService,
  type FaultProxy,
  type FreshDatabase,
} from '@queuebox/testing';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clientThroughProxy, databaseConfig } from '../test/support.js';
import { classifyPostgresError } from './classify-error.js';
import { createPostgresInboxStore } from './inbox/inbox-store.js';
import { runMigrations } from './migrator/migrate.js';
import { tableNamesFrom } from './schema/table-names.js';

const pg = await requireService('postgres', 'postgres: error classification');

/** What a statement rejected with; fails the test when it did not reject. */
async function rejectionOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error: unknown) {
    return error;
  }
  throw new Error('the statement did not fail');
}

function message(overrides: Partial<NewInboxMessage> = {}): NewInboxMessage {
  return {
    id: randomUUID(),
    source: 'orders',
    idempotencyKey: randomUUID(),
    aggregateId: null,
    eventType: null,
    payload: JsonPayload.fromValue({ n: 1 }),
    headers: {},
    correlationId: 'corr-1',
    consumption: 'push',
    publishTime: null,
    ...overrides,
  };
}

/**
 * The classifier against the errors a real PostgreSQL 15 and a real cut connection produce: the
 * SQLSTATEs are the server's, the connection errors postgres.js's and Node's.
 */
describe.skipIf(!pg.available)('classifyPostgresError on real PostgreSQL errors', () => {
  let db: FreshDatabase;
  const proxies: FaultProxy[] = [];
  const clients: postgres.Sql[] = [];

  beforeAll(async () => {
    if (!pg.available) return;
    db = await createFreshDatabase(pg.url);
    await db.sql.unsafe(
      'CREATE TABLE t (id int PRIMARY KEY, name varchar(5), ref uuid, amount int CHECK (amount > 0))',
    );
    await db.sql`INSERT INTO t (id) VALUES (1)`;
    await runMigrations(db.sql, { logger: silentLogger });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((sql) => sql.end({ timeout: 0 })));
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });

  afterAll(async () => {
    await db?.drop();
  });

  /** A client of its own through a fault proxy, so a cut reaches nobody else. */
  async function throughProxy(): Promise<{ sql: postgres.Sql; proxy: FaultProxy }> {
    const { sql, proxy } = await clientThroughProxy(db, { connect_timeout: 5 });
    proxies.push(proxy);
    clients.push(sql);
    await sql`SELECT 1`;
    return { sql, proxy };
  }

  it.each([
    ['23505', () => db.sql`INSERT INTO t (id) VALUES (1)`],
    ['23514', () => db.sql`INSERT INTO t (id, amount) VALUES (2, -5)`],
    ['22P02', () => db.sql`INSERT INTO t (id, ref) VALUES (3, ${'not-a-uuid'})`],
    ['22001', () => db.sql`INSERT INTO t (id, name) VALUES (4, ${'far too long'})`],
    ['22021', () => db.sql`SELECT ${'nul \u0000 inside'}::text AS v`],
  ])('a real %s is permanent: the data itself is refused', async (sqlState, statement) => {
    const error = await rejectionOf(statement);
    expect((error as { code?: string }).code).toBe(sqlState);
    expect(classifyPostgresError(error)).toEqual({
      errorClass: 'permanent',
      code: 'storage_rejected',
      driverCode: sqlState,
    });
  });

  it('a real statement timeout (57014) is transient', async () => {
    const error = await rejectionOf(() =>
      db.sql.begin(async (tx) => {
        await tx`SET LOCAL statement_timeout = 50`;
        await tx`SELECT pg_sleep(2)`;
      }),
    );
    expect(classifyPostgresError(error)).toEqual({
      errorClass: 'transient',
      code: 'database_unavailable',
      driverCode: '57014',
    });
  });

  it('a real deadlock (40P01) is transient', async () => {
    await db.sql`INSERT INTO t (id) VALUES (10), (11)`;
    const a = await db.sql.reserve();
    const b = await db.sql.reserve();
    try {
      await a`BEGIN`;
      await b`BEGIN`;
      await a`UPDATE t SET name = 'a' WHERE id = 10`;
      await b`UPDATE t SET name = 'b' WHERE id = 11`;
      // Each now waits for the other's row: the server aborts one of them after deadlock_timeout.
      const results = await Promise.allSettled([
        a`UPDATE t SET name = 'a' WHERE id = 11`.execute(),
        b`UPDATE t SET name = 'b' WHERE id = 10`.execute(),
      ]);
      const failed = results.filter((r) => r.status === 'rejected');
      expect(failed).toHaveLength(1);
      expect(classifyPostgresError(failed[0]!.reason)).toEqual({
        errorClass: 'transient',
        code: 'database_conflict',
        driverCode: '40P01',
      });
    } finally {
      await a`ROLLBACK`.catch(() => undefined);
      await b`ROLLBACK`.catch(() => undefined);
      a.release();
      b.release();
    }
  });

  it.each([
    ['reset' as const, 'ECONNRESET'],
    ['close' as const, 'CONNECTION_CLOSED'],
  ])('a connection cut (%s) in the middle of a statement is transient', async (mode, code) => {
    const { sql, proxy } = await throughProxy();
    const running = rejectionOf(() => sql`SELECT pg_sleep(5)`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    proxy.cut(mode);
    const error = await running;
    expect(classifyPostgresError(error)).toEqual({
      errorClass: 'transient',
      code: 'database_unavailable',
      driverCode: code,
    });
  });

  it('a refused connection is transient', async () => {
    const { sql, proxy } = await throughProxy();
    proxy.refuse();
    proxy.cut();
    const error = await rejectionOf(() => sql`SELECT 1`);
    // The proxy resets a new connection on arrival, as a closed port behind a firewall does.
    expect(classifyPostgresError(error)).toEqual({
      errorClass: 'transient',
      code: 'database_unavailable',
      driverCode: 'ECONNRESET',
    });
  });

  describe('the inbox store rejects with the classified error', () => {
    const tables = () => tableNamesFrom(databaseConfig());

    it('permanent for a message the table refuses (a key longer than its column)', async () => {
      const store = createPostgresInboxStore(db.sql, tables(), systemClock);
      const error = await rejectionOf(() =>
        store.store(message({ idempotencyKey: 'k'.repeat(300) }), { initialDelayMs: 0 }),
      );
      expect(error).toBeInstanceOf(QueueBoxError);
      expect(error).toMatchObject({ code: 'storage_rejected', retryable: false });
      expect((error as Error).cause).toMatchObject({ code: '22001' });
      // Its neighbours in the same grouped insert are stored.
      const good = message();
      const results = await Promise.allSettled([
        store.store(message({ eventType: 'e'.repeat(256) }), { initialDelayMs: 0 }),
        store.store(good, { initialDelayMs: 0 }),
      ]);
      expect(results[0]).toMatchObject({
        status: 'rejected',
        reason: { code: 'storage_rejected', retryable: false },
      });
      expect(results[1]).toEqual({ status: 'fulfilled', value: { kind: 'stored' } });
    });

    it('transient when the connection is lost', async () => {
      const { sql, proxy } = await throughProxy();
      const store = createPostgresInboxStore(sql, tables(), systemClock);
      proxy.refuse();
      proxy.cut();
      const error = await rejectionOf(() => store.store(message(), { initialDelayMs: 0 }));
      expect(error).toBeInstanceOf(QueueBoxError);
      expect(error).toMatchObject({ code: 'database_unavailable', retryable: true });
    });
  });
});
