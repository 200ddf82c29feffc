import { randomUUID } from 'node:crypto';
import {
  JsonPayload,
  QueueBoxError,
  silentLogger,
  systemClock,
  type InboxStore,
  type NewInboxMessage,
  type StoreResult,
} from '@queuebox/core';
import {
  createFreshDatabase,
  requireService,
  startFaultProxy,
  type FaultProxy,
  type FreshDatabase,
} from '@queuebox/testing';
import type postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configFor } from '../../test/support.js';
import { createPool } from '../connection/pool.js';
import { runMigrations } from '../migrator/migrate.js';
import { tableNamesFrom } from '../schema/table-names.js';
import { createPostgresInboxStore } from './inbox-store.js';

const pg = await requireService('postgres', 'postgres: inbox store during an outage');

const CONNECTION_TIMEOUT_MS = 1000;

function message(key: string): NewInboxMessage {
  return {
    id: randomUUID(),
    source: 'orders',
    idempotencyKey: key,
    aggregateId: null,
    eventType: null,
    payload: JsonPayload.fromValue({ key }),
    headers: {},
    correlationId: 'corr-1',
    consumption: 'push',
    publishTime: null,
  };
}

/** Stores as a broker source would: a transient failure is retried, for at most 10 s. */
async function storeUntilSettled(store: InboxStore, key: string): Promise<StoreResult> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    try {
      return await store.store(message(key), { initialDelayMs: 0 });
    } catch (error: unknown) {
      if (!(error instanceof QueueBoxError) || !error.retryable || performance.now() > deadline)
        throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** How a call settled, or that it had not within `ms`. */
async function settledWithin(call: Promise<unknown>, ms: number): Promise<unknown> {
  const started = performance.now();
  const outcome = await Promise.race([
    call.then(
      (value) => ({ resolved: value }),
      (error: unknown) => ({ rejected: error }),
    ),
    new Promise((resolve) => setTimeout(() => resolve('still pending'), ms)),
  ]);
  return { outcome, ms: performance.now() - started };
}

/**
 * The inbox store on a pool that reaches PostgreSQL through a fault proxy. A broker source acks
 * or requeues a delivery only when its store call settles, so a call that never settles jams
 * the message (and, through the one-statement-at-a-time group, every message after it).
 */
describe.skipIf(!pg.available)('the inbox store when the connection is cut', () => {
  let db: FreshDatabase;
  let proxy: FaultProxy;
  let sql: postgres.Sql;

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '');
    await runMigrations(db.sql, { logger: silentLogger });
  });
  afterEach(async () => {
    await sql?.end({ timeout: 1 });
    await proxy?.close();
  });
  afterAll(async () => {
    await db?.drop();
  });

  async function storeThroughProxy() {
    proxy = await startFaultProxy({ target: { host: db.host, port: db.port } });
    const config = configFor(db, {
      host: proxy.host,
      port: proxy.port,
      poolSize: 1,
      connectionTimeoutMs: CONNECTION_TIMEOUT_MS,
    });
    sql = createPool(config);
    return createPostgresInboxStore(sql, tableNamesFrom(config), systemClock);
  }

  it('rejects, transient, within twice the connection timeout when the statement goes out on a connection that was just reset; a later call stores', async () => {
    const store = await storeThroughProxy();
    // Warm: the pool's one connection is open and has the insert prepared.
    expect(await store.store(message('warm'), { initialDelayMs: 0 })).toEqual({ kind: 'stored' });
    // Cut from a timer: the reset is read (postgres.js sees the socket's 'error') in this loop
    // turn's poll phase, the grouped insert leaves in its check phase, and the socket's 'close'
    // comes in its close phase. postgres.js 3.4.9 fails the running statements on 'error' and,
    // for a close with an error, assumes that happened: a statement sent in between was lost.
    // Wrapped: resolving with the call itself would wait for it.
    const { call } = await new Promise<{ call: Promise<unknown> }>((resolve) =>
      setTimeout(() => {
        proxy.refuse();
        proxy.cut();
        resolve({ call: store.store(message('cut'), { initialDelayMs: 0 }) });
      }, 10),
    );
    const { outcome, ms } = (await settledWithin(call, 2 * CONNECTION_TIMEOUT_MS + 4000)) as {
      outcome: { rejected?: unknown };
      ms: number;
    };
    expect(outcome).toHaveProperty('rejected');
    expect(outcome.rejected).toBeInstanceOf(QueueBoxError);
    expect(outcome.rejected).toMatchObject({ code: 'database_unavailable', retryable: true });
    expect(ms).toBeLessThan(2 * CONNECTION_TIMEOUT_MS + 1500);
    proxy.restore();
    expect(await storeUntilSettled(store, 'cut')).toEqual({ kind: 'stored' });
    const [row] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM inbox WHERE idempotency_key IN ('warm', 'cut')`;
    expect(row!.n).toBe(2);
  });

  it('rejects, transient, within twice the connection timeout when the database stops answering mid-statement; a later call stores', async () => {
    const store = await storeThroughProxy();
    expect(await store.store(message('warm-2'), { initialDelayMs: 0 })).toEqual({
      kind: 'stored',
    });
    // A blackhole: the answers are held back for longer than the test, nothing is reset.
    proxy.setLatency({ toClient: 60_000 });
    const { outcome, ms } = (await settledWithin(
      store.store(message('held'), { initialDelayMs: 0 }),
      2 * CONNECTION_TIMEOUT_MS + 4000,
    )) as { outcome: { rejected?: unknown }; ms: number };
    expect(outcome).toHaveProperty('rejected');
    expect(outcome.rejected).toMatchObject({ code: 'database_unavailable', retryable: true });
    expect(ms).toBeLessThan(2 * CONNECTION_TIMEOUT_MS + 1500);
    proxy.setLatency(0);
    proxy.cut();
    // The held insert may have committed on the server: stored or duplicate, never an error.
    const again = await storeUntilSettled(store, 'held');
    expect(['stored', 'duplicate']).toContain(again.kind);
    expect(await storeUntilSettled(store, 'after')).toEqual({ kind: 'stored' });
  });
});
