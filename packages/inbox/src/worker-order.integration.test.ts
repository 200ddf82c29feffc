import { randomUUID } from 'node:crypto';
import { silentLogger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, insertPull, openAdapter, start, type Adapter } from '../test/support.js';
import { retryAfter, type InboxMessage, type InboxSchema } from './index.js';

const pg = await requireService('postgres', 'inbox client: mapped names and aggregate order');

describe.skipIf(!pg.available)('the pull worker on mapped names and in aggregate order', () => {
  let db: FreshDatabase;
  let adapter: Adapter;
  const newSource = () => `src_${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '');
    await runMigrations(db.sql, { logger: silentLogger });
    await db.sql.unsafe(RENAMED_DDL);
    adapter = openAdapter('fromPostgresJs', db.url);
  });
  afterAll(async () => {
    await adapter?.close();
    await db?.drop();
  });

  it('claims, retries and completes on a renamed table and columns', async () => {
    const id = randomUUID();
    await db.sql.unsafe(
      `INSERT INTO app_inbox (m_id, m_source, m_key, m_aggregate, m_type, m_body, m_headers, m_correlation)
       VALUES ($1, 'orders', 'k1', 'agg', 'type', '{"n": 1}', '{"h": "v"}', 'corr')`,
      [id],
    );
    const seen: InboxMessage[] = [];
    let failed = false;
    const worker = start(
      adapter.source,
      { source: 'orders', pollIntervalMs: 30, schema: RENAMED, retryPolicy: () => retryAfter(0) },
      (message) => {
        seen.push(message);
        if (failed) return Promise.resolve();
        failed = true;
        return Promise.reject(new Error('first time fails'));
      },
    );
    await eventually(async () => {
      const [row] = await db.sql<
        { m_state: string }[]
      >`SELECT m_state FROM app_inbox WHERE m_id = ${id}`;
      return row!.m_state === 'processed';
    });
    await worker.stop();
    expect(seen.map((m) => m.attempt)).toEqual([0, 1]);
    expect(seen[1]).toEqual({
      id,
      source: 'orders',
      idempotencyKey: 'k1',
      aggregateId: 'agg',
      eventType: 'type',
      payload: { n: 1 },
      headers: { h: 'v' },
      attempt: 1,
      correlationId: 'corr',
    });
    const [row] =
      await db.sql`SELECT m_last_error, m_processed_at FROM app_inbox WHERE m_id = ${id}`;
    expect(row).toMatchObject({ m_last_error: 'Error: first time fails' });
  });

  /** Message 0 of aggregate A fails once and waits 400 ms for its retry; message 1 is due. */
  async function orderWith(strictAggregateOrder: boolean): Promise<number[]> {
    const source = newSource();
    await insertPull(db, { source, aggregateId: 'A', payload: { n: 0 } });
    await insertPull(db, { source, aggregateId: 'A', payload: { n: 1 } });
    const order: number[] = [];
    const options = {
      source,
      pollIntervalMs: 20,
      strictAggregateOrder,
      retryPolicy: () => retryAfter(400),
    };
    const worker = start(adapter.source, options, (message) => {
      const n = (message.payload as { n: number }).n;
      order.push(n);
      if (n === 0 && message.attempt === 0) return Promise.reject(new Error('retry me'));
      return Promise.resolve();
    });
    await eventually(() => order.length === 3);
    await worker.stop();
    return order;
  }

  it('lets a due later message pass one waiting for its retry (the reference rule, the default)', async () => {
    expect(await orderWith(false)).toEqual([0, 1, 0]);
  });

  it('holds the later message back behind the retry with strictAggregateOrder', async () => {
    expect(await orderWith(true)).toEqual([0, 0, 1]);
  });
});

const RENAMED: Partial<InboxSchema> = {
  table: 'app_inbox',
  id: 'm_id',
  source: 'm_source',
  idempotencyKey: 'm_key',
  aggregateId: 'm_aggregate',
  eventType: 'm_type',
  payload: 'm_body',
  headers: 'm_headers',
  correlationId: 'm_correlation',
  consumption: 'm_consumption',
  state: 'm_state',
  scheduledAt: 'm_scheduled_at',
  createdAt: 'm_created_at',
  claimToken: 'm_claim_token',
  claimedAt: 'm_claimed_at',
  leaseExpiresAt: 'm_lease_expires_at',
  processedAt: 'm_processed_at',
  attempt: 'm_attempt',
  lastError: 'm_last_error',
};

const RENAMED_DDL = `CREATE TABLE app_inbox (
  m_id UUID PRIMARY KEY,
  m_source VARCHAR(255) NOT NULL,
  m_key VARCHAR(255) NOT NULL,
  m_aggregate VARCHAR(255),
  m_type VARCHAR(255),
  m_body JSONB NOT NULL,
  m_headers JSONB NOT NULL DEFAULT '{}',
  m_correlation VARCHAR(128),
  m_consumption VARCHAR(4) NOT NULL DEFAULT 'pull',
  m_state VARCHAR(50) NOT NULL DEFAULT 'pending',
  m_created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  m_processed_at TIMESTAMPTZ,
  m_scheduled_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  m_attempt INT NOT NULL DEFAULT 0,
  m_last_error TEXT,
  m_claimed_at TIMESTAMPTZ,
  m_claim_token UUID,
  m_lease_expires_at TIMESTAMPTZ
)`;
