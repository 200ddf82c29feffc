import { randomBytes } from 'node:crypto';
import { silentLogger } from '@queuebox/core';
import {
  connectionConfig,
  createPool,
  runMigrations,
  type SqlServerPool,
} from '@queuebox/sqlserver';
import { requireService, sqlServerLogin, sqlServerMigrationConfig } from '@queuebox/testing';
import mssql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRollbackWritesNothing } from '../test/rollback-case.js';
import { enqueue, enqueueMany } from './index.js';

const ss = await requireService('sqlserver', 'outbox client: enqueue on an mssql transaction');

/**
 * The SQL Server side of the enqueue contract: an application's mssql transaction writes outbox
 * rows on a database migrated by QueueBox's own SQL Server migrations; a rollback leaves nothing,
 * a commit leaves exactly the rows asked for, in array order.
 */
describe.skipIf(!ss.available)('enqueue through mssql', () => {
  const name = `qb_outbox_${randomBytes(5).toString('hex')}`;
  let master: mssql.ConnectionPool;
  let pool: mssql.ConnectionPool;
  let migrator: SqlServerPool;
  const rows = async (topic: string) =>
    (
      await pool.request().input('topic', topic).query<{
        id: string;
        topic: string;
        key: string | null;
        aggregate_type: string | null;
        payload: string;
        headers: string;
        state: string;
        attempt: number;
        max_attempts: number;
        scheduled_at: Date;
      }>('SELECT CAST(id AS VARCHAR(36)) AS id, topic, [key], aggregate_type, payload, headers, state, attempt, max_attempts, scheduled_at FROM outbox WHERE topic = @topic ORDER BY sequence')
    ).recordset;
  const inTransaction = async <T>(work: (tx: mssql.Transaction) => Promise<T>): Promise<T> => {
    const tx = new mssql.Transaction(pool);
    await tx.begin();
    try {
      const result = await work(tx);
      await tx.commit();
      return result;
    } catch (error: unknown) {
      await tx.rollback();
      throw error;
    }
  };

  beforeAll(async () => {
    const s = sqlServerLogin(ss.available ? ss.url : '');
    const options = { encrypt: false, trustServerCertificate: true };
    master = await new mssql.ConnectionPool({
      server: s.host,
      port: s.port,
      user: s.user,
      password: s.password,
      database: 'master',
      options,
    }).connect();
    await master.request().batch(`CREATE DATABASE [${name}]`);
    pool = await new mssql.ConnectionPool({
      server: s.host,
      port: s.port,
      user: s.user,
      password: s.password,
      database: name,
      options,
    }).connect();
    migrator = createPool(connectionConfig(sqlServerMigrationConfig(s, name)), 1, 30_000);
    await runMigrations(migrator, { logger: silentLogger });
  }, 120_000);
  afterAll(async () => {
    await migrator?.close();
    await pool?.close();
    await master
      ?.request()
      .batch(
        `ALTER DATABASE [${name}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [${name}]`,
      );
    await master?.close();
  });

  it('writes nothing when the transaction rolls back', async () => {
    await expectRollbackWritesNothing(inTransaction, rows);
  });

  it('writes one row with every field an application may set, and returns its id', async () => {
    const scheduledAt = new Date(Date.UTC(2030, 0, 2, 3, 4, 5, 678));
    const id = await inTransaction((tx) =>
      enqueue(tx, {
        topic: 'order.created',
        key: 'order-42',
        payload: { orderId: 42, note: 'it\'s "quoted"' },
        headers: { 'x-tenant': 'acme' },
        aggregateType: 'order',
        scheduledAt,
        maxAttempts: 9,
      }),
    );
    const [row] = await rows('order.created');
    expect(row).toMatchObject({
      key: 'order-42',
      aggregate_type: 'order',
      state: 'pending',
      attempt: 0,
      max_attempts: 9,
    });
    expect(row?.id.toLowerCase()).toBe(id);
    expect(JSON.parse(row!.payload)).toEqual({ orderId: 42, note: 'it\'s "quoted"' });
    expect(JSON.parse(row!.headers)).toEqual({ 'x-tenant': 'acme' });
    // Bound as UTC text, read as UTC (spec §3.7), whatever the host's zone.
    expect(row?.scheduled_at.toISOString()).toBe(scheduledAt.toISOString());
  });

  it('writes many rows in array order, beyond one request, and defaults what is left out', async () => {
    const messages = Array.from({ length: 260 }, (_, i) => ({ topic: 'bulk', payload: { i } }));
    const ids = await inTransaction((tx) => enqueueMany(tx, messages));
    const written = await rows('bulk');
    expect(written.map((r) => r.id.toLowerCase())).toEqual(ids);
    expect(written.map((r) => (JSON.parse(r.payload) as { i: number }).i)).toEqual(
      messages.map((m) => m.payload.i),
    );
    expect(written[0]).toMatchObject({ max_attempts: 5, key: null, headers: '{}' });
  });
});
