import { randomBytes } from 'node:crypto';
import type { CaptureSession, ChangeKind } from '@queuebox/core';
import {
  createFreshDatabase,
  requirePostgresLogical,
  startFaultProxy,
  type FaultProxy,
  type FreshDatabase,
} from '@queuebox/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureConfigWith } from '../../test/capture-support.js';
import { configFor, recordingLogger } from '../../test/support.js';
import { runMigrations } from '../migrator/migrate.js';
import { createPostgresCaptureSource } from './capture-session.js';
import { captureLockKey } from './capture-sql.js';

const pg = await requirePostgresLogical('postgres: capture source');
const pgUrl = pg.available ? pg.url : '';

const insertRow = (db: FreshDatabase, topic = 'order.created') =>
  db.sql`INSERT INTO outbox (id, topic, payload) VALUES (gen_random_uuid(), ${topic}, '{"a":1}')`;

async function waitFor(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The PostgreSQL capture source on a real server with wal_level=logical: the ownership lock,
 * the registry, the preflight texts, the stream's classification of changes, and that no slot
 * outlives its connection.
 */
describe.skipIf(!pg.available)('PostgreSQL capture source', () => {
  let db: FreshDatabase;
  const slot = `qb_cap_${randomBytes(3).toString('hex')}`;
  const sessions: CaptureSession[] = [];
  const slotsLike = async (prefix: string) =>
    db.sql<{ slot_name: string; temporary: boolean }[]>`
      SELECT slot_name, temporary FROM pg_replication_slots WHERE slot_name LIKE ${`${prefix}%`}`;

  const source = (capture: Parameters<typeof captureConfigWith>[1] = {}) =>
    createPostgresCaptureSource(captureConfigWith(configFor(db), { slot, ...capture }), {
      stream: { statusIntervalMs: 100, silenceLimitMs: 1_000 },
    });
  const open = async (capture: Parameters<typeof captureConfigWith>[1] = {}) => {
    const session = await source(capture).open();
    sessions.push(session);
    return session;
  };

  beforeAll(async () => {
    db = await createFreshDatabase(pgUrl);
    await runMigrations(db.sql, { logger: recordingLogger() });
    await db.sql`CREATE TABLE other (id int PRIMARY KEY)`;
    await db.sql`CREATE PUBLICATION queuebox_outbox FOR TABLE outbox, other`;
    await db.sql`CREATE PUBLICATION no_outbox FOR TABLE other`;
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((session) => session.close()));
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('takes the lock of the identity once; a second session sees the first as the holder', async () => {
    const first = await open();
    expect(await first.tryLock()).toEqual({ held: true });
    const second = await open();
    expect(await second.tryLock()).toEqual({ held: false, holder: first.id });
    // Another identity has a lock of its own.
    expect(await (await open({ identity: 'other_identity' })).tryLock()).toEqual({ held: true });
    const [lock] = await db.sql<{ pid: number }[]>`
      SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND objid::bigint = (${captureLockKey('queuebox')}::bigint & 4294967295)`;
    expect(String(lock?.pid)).toBe(first.id);
    expect(await first.alive(2_000)).toBe(true);
    await first.close();
    expect(await second.tryLock()).toEqual({ held: true });
  });

  it('ends a session that holds the lock when asked to', async () => {
    const first = await open();
    await first.tryLock();
    const second = await open();
    expect(await second.endStaleSession(first.id)).toBe(true);
    await waitFor(async () => (await second.tryLock()).held);
    expect(await first.alive(2_000)).toBe(false);
  });

  it('inserts a registry row once and reads it back', async () => {
    const session = await open();
    expect(await session.registration('queuebox')).toBeNull();
    await session.register({ identity: 'queuebox', stateId: 'state-1', fingerprint: 'f1' });
    await session.register({ identity: 'queuebox', stateId: 'state-2', fingerprint: 'f2' });
    expect(await session.registration('queuebox')).toEqual({
      identity: 'queuebox',
      stateId: 'state-1',
      fingerprint: 'f1',
    });
    await db.sql`DELETE FROM queuebox_capture_state`;
  });

  it('passes the preflight, and names a missing publication or table with the reference text', async () => {
    await (await open()).preflight();
    await expect((await open({ publication: 'absent_pub' })).preflight()).rejects.toThrow(
      'The publication absent_pub does not exist. Create it before you enable capture.',
    );
    await expect((await open({ publication: 'no_outbox' })).preflight()).rejects.toThrow(
      'The publication no_outbox does not publish the outbox table public.outbox. Add it: ALTER PUBLICATION no_outbox ADD TABLE public.outbox;',
    );
  });

  it('reports inserts, updates and deletes of the outbox table, nothing of other tables', async () => {
    const session = await open();
    const changes: ChangeKind[] = [];
    const stream = await session.openStream({ onChange: (kind) => changes.push(kind) });
    expect(await slotsLike(slot)).toEqual([
      { slot_name: expect.stringMatching(new RegExp(`^${slot}_[0-9a-f]{8}$`)), temporary: true },
    ]);
    await db.sql`INSERT INTO other VALUES (1)`;
    await insertRow(db);
    await waitFor(() => changes.length === 1);
    await db.sql`UPDATE outbox SET state = 'processing'`;
    await db.sql`DELETE FROM outbox`;
    await db.sql`UPDATE other SET id = 2`;
    await waitFor(() => changes.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(changes).toEqual(['insert', 'update', 'delete']);
    await stream.close();
    await expect(stream.ended).resolves.toBeUndefined();
    await waitFor(async () => (await slotsLike(slot)).length === 0);
  });

  it('opens a new feed on the same session after closing one: the old slot goes, a new one streams', async () => {
    const session = await open();
    expect(await session.tryLock()).toEqual({ held: true });
    const changes: ChangeKind[] = [];
    const first = await session.openStream({ onChange: (kind) => changes.push(kind) });
    const [before] = await slotsLike(slot);
    await first.close();
    await waitFor(async () => (await slotsLike(slot)).length === 0);
    // Committed while no feed was open: nobody hears of it (the poller's claim finds it).
    await insertRow(db);
    await session.openStream({ onChange: (kind) => changes.push(kind) });
    const after = await slotsLike(slot);
    expect(after).toHaveLength(1);
    expect(after[0]!.slot_name).not.toBe(before!.slot_name);
    await insertRow(db);
    await waitFor(() => changes.length === 1);
    expect(changes).toEqual(['insert']);
    expect(await session.alive(2_000)).toBe(true);
    await db.sql`DELETE FROM outbox`;
  });

  it('keeps the temporary slot from holding WAL while it streams', async () => {
    const session = await open();
    await session.openStream({ onChange: () => undefined });
    for (let i = 0; i < 20; i++) await insertRow(db);
    // Status updates confirm what arrived: the slot's confirmed position follows the WAL.
    await waitFor(async () => {
      const [row] = await db.sql<{ lag: string }[]>`
        SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint AS lag
        FROM pg_replication_slots WHERE slot_name LIKE ${`${slot}%`}`;
      return row !== undefined && Number(row.lag) < 1024 * 1024;
    });
  });

  it('lists a durable slot of the configured name with the WAL it retains', async () => {
    const durable = `${slot}_durable`;
    await db.sql`SELECT pg_create_logical_replication_slot(${durable}, 'pgoutput')`;
    try {
      for (let i = 0; i < 5; i++) await insertRow(db);
      const session = await open({ slot: durable });
      const [found] = await session.durableSlots!();
      expect(found).toMatchObject({ name: durable, active: false });
      expect(found!.retainedBytes).toBeGreaterThan(0);
      expect(await (await open()).durableSlots!()).toEqual([]);
    } finally {
      await db.sql`SELECT pg_drop_replication_slot(${durable})`;
    }
  });

  describe('through a fault proxy', () => {
    let proxy: FaultProxy;
    beforeAll(async () => {
      const url = new URL(pgUrl);
      proxy = await startFaultProxy({
        target: { host: url.hostname, port: Number(url.port || 5432) },
      });
    });
    afterAll(async () => {
      await proxy?.close();
    });
    const viaProxy = () => open({ connection: { hostname: proxy.host, port: proxy.port } });

    it('ends the stream with the reason when the connection is cut, and the server drops the slot', async () => {
      const stream = await (await viaProxy()).openStream({ onChange: () => undefined });
      proxy.cut();
      await expect(stream.ended).rejects.toThrow();
      await waitFor(async () => (await slotsLike(slot)).length === 0);
    });

    it('ends a stream that stays silent past the limit (a half-open connection)', async () => {
      const stream = await (await viaProxy()).openStream({ onChange: () => undefined });
      proxy.setLatency({ toClient: 5_000 });
      try {
        await expect(stream.ended).rejects.toThrow(
          'The replication connection was silent for 1000 ms.',
        );
      } finally {
        proxy.setLatency(0);
      }
    });
  });
});
