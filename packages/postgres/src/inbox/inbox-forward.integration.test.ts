import { randomUUID } from 'node:crypto';
import {
  JsonPayload,
  type RelayClaimedMessage,
  type InboxStore,
  type NewInboxMessage,
  type RelayForward,
} from '@queuebox/core';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresInboxStore } from './inbox-store.js';
import {
  createTestTables,
  inboxMessage,
  mutableClock,
  type TableVariant,
  type TestTables,
} from '../../test/inbox-tables.js';

const pg = await requireService('postgres', 'postgres: inbox forward');

/**
 * The fenced writes of the relay (spec §8.3): forward (processed mark + outbox insert in one
 * statement), dead marks, renewals, the reclaim step and the oldest-pending gauge.
 */
const LEASE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const variant of ['default', 'renamed'] as TableVariant[]) {
  describe.skipIf(!pg.available)(
    `PostgreSQL inbox store: forward and fences (${variant} tables)`,
    () => {
      let db: FreshDatabase;
      let tables: TestTables;
      let store: InboxStore;
      const clock = mutableClock(new Date('2030-01-01T00:00:00.000Z'));

      beforeAll(async () => {
        if (!pg.available) return;
        db = await createFreshDatabase(pg.url);
        tables = await createTestTables(db.sql, variant);
        store = createPostgresInboxStore(db.sql, tables.names, clock);
      });

      afterAll(async () => {
        await db?.drop();
      });

      beforeEach(async () => {
        clock.set(new Date('2030-01-01T00:00:00.000Z'));
        await db.sql.unsafe(`DELETE FROM "${tables.inbox}"`);
        await db.sql.unsafe(`DELETE FROM "${tables.outbox}"`);
      });

      const storeAll = async (messages: NewInboxMessage[]) => {
        for (const m of messages) await store.store(m, { initialDelayMs: 0 });
        return messages;
      };
      const claimOne = async (m: NewInboxMessage = inboxMessage(), leaseMs = LEASE) => {
        await storeAll([m]);
        const [claimed] = await store.claimForRelay(1, leaseMs);
        return claimed!;
      };
      const relayForward = (m: RelayClaimedMessage, token = m.claimToken): RelayForward => ({
        fence: { id: m.id, claimToken: token },
        outbox: {
          id: randomUUID(),
          topic: `topic.${m.eventType ?? ''}`,
          key: m.aggregateId,
          headers: { 'x-inbox-id': m.id },
          maxAttempts: 7,
        },
      });
      const inboxRow = async (id: string) =>
        (await db.sql.unsafe(`SELECT * FROM (${tables.inboxRows}) r WHERE r.id = $1`, [id]))[0]!;
      const outboxRows = () =>
        db.sql.unsafe(`SELECT * FROM (${tables.outboxRows}) r ORDER BY r.sequence`);
      const expireLease = (id: string) =>
        db.sql.unsafe(
          `UPDATE "${tables.inbox}" SET "${tables.inboxColumns.leaseExpiresAt}" = clock_timestamp() - interval '1 second'
         WHERE "${tables.inboxColumns.id}" = $1`,
          [id],
        );

      it('writes the outbox row of spec §8.3 and marks the inbox row processed, in one statement', async () => {
        const claimed = await claimOne(
          inboxMessage({ aggregateId: 'order-9', payload: JsonPayload.fromValue({ a: [1, 'x'] }) }),
        );
        clock.set(new Date('2030-01-01T00:00:05.000Z'));
        const forward = relayForward(claimed);
        expect(await store.forward([forward])).toEqual(new Set([claimed.id]));
        const [out] = await outboxRows();
        expect(out).toMatchObject({
          id: forward.outbox.id,
          topic: 'topic.order.created',
          key: 'order-9',
          payload: { a: [1, 'x'] },
          headers: { 'x-inbox-id': claimed.id },
          aggregate_type: null,
          state: 'pending',
          attempt: 0,
          max_attempts: 7,
          scheduled_at: clock.now(),
          created_at: clock.now(),
          updated_at: clock.now(),
          claimed_at: null,
          claim_token: null,
          lease_expires_at: null,
          last_error: null,
        });
        expect(out!.sequence).not.toBeNull();
        expect(await inboxRow(claimed.id)).toMatchObject({
          state: 'processed',
          processed_at: clock.now(),
        });
      });

      it('inserts a batch in the order given, so the sequence follows the claim order', async () => {
        await storeAll([inboxMessage(), inboxMessage(), inboxMessage()]);
        const claimed = await store.claimForRelay(10, LEASE);
        const order = [claimed[2]!, claimed[0]!, claimed[1]!];
        expect(await store.forward(order.map((m) => relayForward(m)))).toEqual(
          new Set(claimed.map((m) => m.id)),
        );
        expect((await outboxRows()).map((r) => r.headers['x-inbox-id'] as string)).toEqual(
          order.map((m) => m.id),
        );
      });

      it('writes nothing for a stale token and does not return the row', async () => {
        const claimed = await claimOne();
        expect(await store.forward([relayForward(claimed, randomUUID())])).toEqual(new Set());
        expect(await outboxRows()).toHaveLength(0);
        expect(await inboxRow(claimed.id)).toMatchObject({
          state: 'processing',
          claim_token: claimed.claimToken,
        });
      });

      it('writes nothing for an expired lease', async () => {
        const claimed = await claimOne(inboxMessage(), 1);
        await sleep(20);
        expect(await store.forward([relayForward(claimed)])).toEqual(new Set());
        expect(await outboxRows()).toHaveLength(0);
        expect((await inboxRow(claimed.id)).state).toBe('processing');
      });

      it('forwards the rows of a batch whose fence held and only those', async () => {
        await storeAll([inboxMessage(), inboxMessage(), inboxMessage()]);
        const [a, b, c] = await store.claimForRelay(10, LEASE);
        await expireLease(c!.id);
        const held = await store.forward([
          relayForward(a!),
          relayForward(b!, randomUUID()),
          relayForward(c!),
        ]);
        expect(held).toEqual(new Set([a!.id]));
        expect((await outboxRows()).map((r) => r.headers['x-inbox-id'] as string)).toEqual([a!.id]);
        expect((await inboxRow(b!.id)).state).toBe('processing');
      });

      it('never writes a second outbox row after a relay died between claim and forward', async () => {
        // Replica 1 claims and dies; the lease runs out; the reclaim step returns the row; replica
        // 2 claims it anew and forwards. Replica 1 waking up late must write nothing.
        const first = await claimOne(inboxMessage({ aggregateId: 'A' }), 50);
        await sleep(80);
        expect(await store.reclaimExpired()).toBe(1);
        expect(await store.forward([relayForward(first)])).toEqual(new Set());
        const [second] = await store.claimForRelay(10, LEASE);
        expect(second!.id).toBe(first.id);
        expect(second!.claimToken).not.toBe(first.claimToken);
        expect(await store.forward([relayForward(first)])).toEqual(new Set());
        expect(await store.forward([relayForward(second!)])).toEqual(new Set([first.id]));
        expect(await store.forward([relayForward(second!)])).toEqual(new Set());
        expect(await outboxRows()).toHaveLength(1);
      });

      it('rolls the outbox insert back with the mark when the statement fails', async () => {
        const claimed = await claimOne();
        const bad = relayForward(claimed);
        const tooLong: RelayForward = { ...bad, outbox: { ...bad.outbox, topic: 't'.repeat(300) } };
        await expect(store.forward([tooLong])).rejects.toThrow();
        expect(await outboxRows()).toHaveLength(0);
        expect((await inboxRow(claimed.id)).state).toBe('processing');
      });

      it('marks dead under the fence and clears claimed_at', async () => {
        await storeAll([inboxMessage(), inboxMessage()]);
        const [a, b] = await store.claimForRelay(10, LEASE);
        const held = await store.markDead([
          { id: a!.id, claimToken: a!.claimToken },
          { id: b!.id, claimToken: randomUUID() },
        ]);
        expect(held).toEqual(new Set([a!.id]));
        expect(await inboxRow(a!.id)).toMatchObject({ state: 'dead', claimed_at: null });
        expect((await inboxRow(b!.id)).state).toBe('processing');
        expect(await outboxRows()).toHaveLength(0);
      });

      it('renews live leases under the fence only', async () => {
        await storeAll([inboxMessage(), inboxMessage(), inboxMessage()]);
        const [a, b, c] = await store.claimForRelay(10, 1_000);
        await expireLease(c!.id);
        const before = (await inboxRow(a!.id)).lease_expires_at as Date;
        const held = await store.renew(
          [a!, b!, c!].map((m, n) => ({
            id: m.id,
            claimToken: n === 1 ? randomUUID() : m.claimToken,
          })),
          LEASE,
        );
        expect(held).toEqual(new Set([a!.id]));
        const after = (await inboxRow(a!.id)).lease_expires_at as Date;
        expect(after.getTime() - before.getTime()).toBeGreaterThan(LEASE - 1_000 - 1_000);
        expect(await store.renew([], LEASE)).toEqual(new Set());
      });

      it('reclaims expired and lease-less processing rows of both consumption modes, nothing else', async () => {
        const [expiredPush, expiredPull, noLease, live, pending] = await storeAll([
          inboxMessage(),
          inboxMessage({ consumption: 'pull' }),
          inboxMessage(),
          inboxMessage(),
          inboxMessage(),
        ]);
        const c = tables.inboxColumns;
        const set = (id: string, lease: string) =>
          db.sql.unsafe(
            `UPDATE "${tables.inbox}" SET "${c.state}" = 'processing', "${c.claimedAt}" = clock_timestamp(),
             "${c.leaseExpiresAt}" = ${lease} WHERE "${c.id}" = $1`,
            [id],
          );
        await set(expiredPush!.id, `clock_timestamp() - interval '1 second'`);
        await set(expiredPull!.id, `clock_timestamp() - interval '1 second'`);
        await set(noLease!.id, 'NULL');
        await set(live!.id, `clock_timestamp() + interval '1 minute'`);
        expect(await store.reclaimExpired()).toBe(3);
        for (const m of [expiredPush!, expiredPull!, noLease!]) {
          expect(await inboxRow(m.id)).toMatchObject({ state: 'pending', claimed_at: null });
        }
        expect((await inboxRow(live!.id)).state).toBe('processing');
        expect((await inboxRow(pending!.id)).state).toBe('pending');
        expect(await store.reclaimExpired()).toBe(0);
      });

      it('reports the age of the oldest pending row of both modes, 0 when none', async () => {
        expect(await store.oldestPendingAgeSeconds()).toBe(0);
        clock.set(new Date(Date.now() - 100_000));
        await storeAll([inboxMessage({ consumption: 'pull' })]);
        clock.set(new Date(Date.now() - 200_000));
        const [processing] = await storeAll([inboxMessage()]);
        await db.sql.unsafe(
          `UPDATE "${tables.inbox}" SET "${tables.inboxColumns.state}" = 'processing' WHERE "${tables.inboxColumns.id}" = $1`,
          [processing!.id],
        );
        const age = await store.oldestPendingAgeSeconds();
        expect(age).toBeGreaterThanOrEqual(99);
        expect(age).toBeLessThan(130);
        // A row stamped by an app clock ahead of the database's never gives a negative age.
        await db.sql.unsafe(`DELETE FROM "${tables.inbox}"`);
        clock.set(new Date(Date.now() + 60_000));
        await storeAll([inboxMessage()]);
        expect(await store.oldestPendingAgeSeconds()).toBe(0);
      });
    },
  );
}
