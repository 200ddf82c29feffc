import {
  JsonPayload,
  javaStringHashCode,
  type RelayClaimedMessage,
  type InboxStore,
  type NewInboxMessage,
} from '@queuebox/core';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresInboxStore } from './inbox-store.js';
import {
  createTestTables,
  inboxMessage,
  mutableClock,
  type TableVariant,
  type TestTables,
} from '../../test/inbox-tables.js';

const pg = await requireService('postgres', 'postgres: inbox relay claim');

/** The batched relay claim (spec §8.2 with the guarantee of §8.4), on default and renamed tables. */
const LEASE = 60_000;

for (const variant of ['default', 'renamed'] as TableVariant[]) {
  describe.skipIf(!pg.available)(`PostgreSQL inbox store: relay claim (${variant} tables)`, () => {
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
      await db.sql.unsafe(`DELETE FROM "${tables.inbox}"`);
      await db.sql.unsafe(`DELETE FROM "${tables.outbox}"`);
    });

    /** Stores one after the other, so scheduled_at follows the argument order. */
    const storeAll = async (
      messages: NewInboxMessage[],
      initialDelayMs = 0,
    ): Promise<NewInboxMessage[]> => {
      for (const m of messages) await store.store(m, { initialDelayMs });
      return messages;
    };
    const agg = (aggregateId: string | null, n = 1): NewInboxMessage[] =>
      Array.from({ length: n }, () => inboxMessage({ aggregateId }));
    const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id);
    const forwardAll = (claimed: readonly RelayClaimedMessage[]) =>
      store.forward(
        claimed.map((m) => ({
          fence: { id: m.id, claimToken: m.claimToken },
          outbox: {
            topic: 't',
            key: m.aggregateId,
            headers: { 'x-inbox-id': m.id },
          },
        })),
      );
    const row = async (id: string) =>
      (await db.sql.unsafe(`SELECT * FROM (${tables.inboxRows}) r WHERE r.id = $1`, [id]))[0]!;
    const setProcessing = (id: string, leaseSql: string) =>
      db.sql.unsafe(
        `UPDATE "${tables.inbox}" SET "${tables.inboxColumns.state}" = 'processing',
           "${tables.inboxColumns.leaseExpiresAt}" = ${leaseSql} WHERE "${tables.inboxColumns.id}" = $1`,
        [id],
      );

    it('claims due push rows in (scheduled_at, created_at) order under a DB-clock lease', async () => {
      const stored = await storeAll([
        inboxMessage({ aggregateId: 'a' }),
        inboxMessage({ aggregateId: 'b' }),
        inboxMessage(),
      ]);
      const [before] = await db.sql`SELECT clock_timestamp() AS now`;
      const claimed = await store.claimForRelay(10, LEASE);
      expect(ids(claimed)).toEqual(ids(stored));
      for (const m of claimed) {
        expect(m).toMatchObject({
          state: 'processing',
          source: 'orders',
          consumption: 'push',
          attempt: 0,
        });
        expect(m.claimToken).toMatch(/^[0-9a-f-]{36}$/);
        const r = await row(m.id);
        expect(r.claim_token).toBe(m.claimToken);
        expect(r.claimed_at).toEqual(clock.now());
        const leaseAt = (r.lease_expires_at as Date).getTime() - (before!.now as Date).getTime();
        expect(leaseAt).toBeGreaterThanOrEqual(LEASE);
        expect(leaseAt).toBeLessThan(LEASE + 5_000);
      }
      expect(new Set(claimed.map((m) => m.claimToken)).size).toBe(3);
    });

    it('claims at most `limit` rows, the earliest ones', async () => {
      const stored = await storeAll(agg(null, 5));
      expect(ids(await store.claimForRelay(2, LEASE))).toEqual(ids(stored.slice(0, 2)));
      expect(ids(await store.claimForRelay(10, LEASE))).toEqual(ids(stored.slice(2)));
      expect(await store.claimForRelay(10, LEASE)).toEqual([]);
    });

    it('forwards one aggregate one row at a time, in order', async () => {
      const stored = await storeAll(agg('order-7', 3));
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        const claimed = await store.claimForRelay(10, LEASE);
        expect(claimed).toHaveLength(1);
        // The aggregate is busy while its row is processing.
        expect(await store.claimForRelay(10, LEASE)).toEqual([]);
        seen.push(...ids(claimed));
        await forwardAll(claimed);
      }
      expect(seen).toEqual(ids(stored));
    });

    it('claims the heads of two aggregates in parallel', async () => {
      const [a1, b1, a2, b2] = await storeAll([
        inboxMessage({ aggregateId: 'A' }),
        inboxMessage({ aggregateId: 'B' }),
        inboxMessage({ aggregateId: 'A' }),
        inboxMessage({ aggregateId: 'B' }),
      ]);
      const first = await store.claimForRelay(10, LEASE);
      expect(ids(first)).toEqual([a1!.id, b1!.id]);
      await forwardAll(first);
      expect(ids(await store.claimForRelay(10, LEASE))).toEqual([a2!.id, b2!.id]);
    });

    it('treats every row without an aggregate as eligible', async () => {
      const stored = await storeAll(agg(null, 4));
      expect(ids(await store.claimForRelay(10, LEASE))).toEqual(ids(stored));
    });

    it('skips an aggregate with any processing row: other source, pull, expired lease alike', async () => {
      const blockers = await storeAll([
        inboxMessage({ aggregateId: 'P', source: 'payments', consumption: 'pull' }),
        inboxMessage({ aggregateId: 'Q', source: 'payments' }),
      ]);
      await setProcessing(blockers[0]!.id, `clock_timestamp() + interval '1 minute'`);
      await setProcessing(blockers[1]!.id, `clock_timestamp() - interval '1 minute'`);
      const [p, q, free] = await storeAll([
        inboxMessage({ aggregateId: 'P' }),
        inboxMessage({ aggregateId: 'Q' }),
        inboxMessage({ aggregateId: 'R' }),
      ]);
      expect(ids(await store.claimForRelay(10, LEASE))).toEqual([free!.id]);
      expect((await row(p!.id)).state).toBe('pending');
      expect((await row(q!.id)).state).toBe('pending');
    });

    it('never claims or touches pull rows', async () => {
      const pull = await storeAll([
        inboxMessage({ consumption: 'pull' }),
        inboxMessage({ consumption: 'pull', aggregateId: 'X' }),
      ]);
      const push = await storeAll([inboxMessage({ aggregateId: 'X' })]);
      expect(ids(await store.claimForRelay(10, LEASE))).toEqual(ids(push));
      for (const m of pull)
        expect(await row(m.id)).toMatchObject({
          state: 'pending',
          claim_token: null,
          claimed_at: null,
        });
    });

    it('orders by scheduled_at before created_at and waits for rows that are not due', async () => {
      const [delayed] = await storeAll([inboxMessage({ aggregateId: 'D' })], 60_000);
      const [plain] = await storeAll([inboxMessage({ aggregateId: 'D' })]);
      const [early] = await storeAll([
        inboxMessage({ publishTime: new Date(Date.now() - 3_600_000) }),
      ]);
      // `early` was stored last but is scheduled an hour back; the delayed head of D is not due,
      // so D's later row goes first (spec §8.4: initialDelay can reorder an aggregate).
      expect(ids(await store.claimForRelay(10, LEASE))).toEqual([early!.id, plain!.id]);
      expect((await row(delayed!.id)).state).toBe('pending');
    });

    it('looks past a run of one aggregate to the heads behind it', async () => {
      await storeAll(agg('hot', 80));
      const others = await storeAll([
        inboxMessage({ aggregateId: 'x' }),
        inboxMessage({ aggregateId: 'y' }),
      ]);
      const claimed = await store.claimForRelay(10, LEASE);
      expect(claimed.map((m) => m.aggregateId)).toEqual(['hot', 'x', 'y']);
      expect(ids(claimed.slice(1))).toEqual(ids(others));
    });

    /** Stores at once (one grouped insert): scheduled_at still follows the argument order. */
    const storeBulk = async (messages: NewInboxMessage[]): Promise<NewInboxMessage[]> => {
      await Promise.all(messages.map((m) => store.store(m, { initialDelayMs: 0 })));
      return messages;
    };
    /** A head of `aggregateId` in flight (a lease far ahead, so no reclaim frees it). */
    const busyAggregate = async (aggregateId: string) => {
      const [head] = await storeAll([inboxMessage({ aggregateId })]);
      await setProcessing(head!.id, `clock_timestamp() + interval '1 hour'`);
    };

    it('passes over a busy aggregate whose backlog is larger than the window (batch 100, window 500)', async () => {
      await busyAggregate('X');
      await storeBulk(agg('X', 600));
      const [other, loose] = await storeAll([inboxMessage({ aggregateId: 'Y' }), inboxMessage()]);
      expect(ids(await store.claimForRelay(100, LEASE))).toEqual([other!.id, loose!.id]);
    });

    it('passes over a busy backlog at batch 1 too (window 100), one row per claim', async () => {
      await busyAggregate('X');
      await storeBulk(agg('X', 150));
      const [other, loose] = await storeAll([inboxMessage({ aggregateId: 'Y' }), inboxMessage()]);
      expect(ids(await store.claimForRelay(1, LEASE))).toEqual([other!.id]);
      expect(ids(await store.claimForRelay(1, LEASE))).toEqual([loose!.id]);
      expect(await store.claimForRelay(1, LEASE)).toEqual([]);
    });

    it('looks past a free aggregate whose backlog is larger than the window', async () => {
      const [hotHead] = await storeBulk(agg('hot', 600));
      const [other, loose] = await storeAll([inboxMessage({ aggregateId: 'Y' }), inboxMessage()]);
      expect(ids(await store.claimForRelay(100, LEASE))).toEqual([
        hotHead!.id,
        other!.id,
        loose!.id,
      ]);
    });

    it('fills a batch across several windows of busy and free backlogs, each aggregate by its head', async () => {
      const [hotHead] = await storeBulk(agg('hot', 150));
      await busyAggregate('X');
      await storeBulk(agg('X', 150));
      const tail = await storeAll([
        inboxMessage({ aggregateId: 'a' }),
        inboxMessage(),
        inboxMessage({ aggregateId: 'a' }),
        inboxMessage({ aggregateId: 'b' }),
        inboxMessage({ aggregateId: 'hot' }),
        inboxMessage(),
      ]);
      // Window 100 at a batch of 10: the first window is all `hot`, the next ones pass over X.
      expect(ids(await store.claimForRelay(10, LEASE))).toEqual([
        hotHead!.id,
        tail[0]!.id,
        tail[1]!.id,
        tail[3]!.id,
        tail[5]!.id,
      ]);
    });

    it('reads a tie group larger than the window whole: the head of each aggregate is its least id', async () => {
      // One publish time and one app clock: every row has the same scheduled_at and created_at.
      const publishTime = new Date(Date.now() - 60_000);
      const tied = Array.from({ length: 150 }, (_, n) =>
        inboxMessage({ aggregateId: `t-${n % 3}`, publishTime }),
      );
      await storeBulk(tied);
      const heads = ['t-0', 't-1', 't-2'].map(
        (aggregateId) =>
          tied
            .filter((m) => m.aggregateId === aggregateId)
            .map((m) => m.id)
            .sort()[0]!,
      );
      const first = await store.claimForRelay(2, LEASE);
      expect(ids(first)).toEqual([...heads].sort().slice(0, 2));
      expect(ids(await store.claimForRelay(10, LEASE))).toEqual([...heads].sort().slice(2));
    });

    it('skips a head another transaction holds, and never replaces it by a later row of its aggregate', async () => {
      const [a1, , b1] = await storeAll([
        inboxMessage({ aggregateId: 'A' }),
        inboxMessage({ aggregateId: 'A' }),
        inboxMessage({ aggregateId: 'B' }),
      ]);
      const holder = await db.sql.reserve();
      try {
        await holder`BEGIN`;
        await holder.unsafe(
          `SELECT 1 FROM "${tables.inbox}" WHERE "${tables.inboxColumns.id}" = $1 FOR UPDATE`,
          [a1!.id],
        );
        expect(ids(await store.claimForRelay(10, LEASE))).toEqual([b1!.id]);
        await holder`ROLLBACK`;
      } finally {
        holder.release();
      }
      expect(ids(await store.claimForRelay(10, LEASE))).toEqual([a1!.id]);
    });

    it("waits for the reference's advisory lock on the inbox table name", async () => {
      const key = javaStringHashCode(tables.inbox);
      if (variant === 'default') expect(key).toBe(100344454);
      await storeAll(agg(null, 1));
      const holder = await db.sql.reserve();
      try {
        await holder`BEGIN`;
        await holder`SELECT pg_advisory_xact_lock(${key}::bigint)`;
        let done = false;
        const claim = store.claimForRelay(10, LEASE).then((rows) => {
          done = true;
          return rows;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(done).toBe(false);
        await holder`COMMIT`;
        expect(await claim).toHaveLength(1);
      } finally {
        holder.release();
      }
    });

    it('keeps one processing row per aggregate with two relays and a writer running at once', async () => {
      // Two stores on two separate pools stand for two replicas; a third keeps storing.
      const aggregates = Array.from({ length: 4 }, (_, n) => `agg-${n}`);
      const second = postgres(db.url, { max: 3, onnotice: () => undefined });
      const replica = createPostgresInboxStore(second, tables.names, clock);
      const created: string[] = [];
      const storeRound = async (round: number) => {
        for (const aggregateId of aggregates) {
          const m = inboxMessage({ aggregateId, payload: JsonPayload.fromValue({ round }) });
          await store.store(m, { initialDelayMs: 0 });
          created.push(m.id);
        }
      };
      // A backlog first, so every aggregate has several pending rows when the relays start.
      for (let round = 0; round < 10; round++) await storeRound(round);
      let writing = true;
      const writer = (async () => {
        for (let round = 10; round < 20; round++) await storeRound(round);
        writing = false;
      })();
      const pendingCount = async () =>
        Number(
          (
            await db.sql.unsafe(
              `SELECT count(*) AS n FROM (${tables.inboxRows}) r WHERE r.state <> 'processed'`,
            )
          )[0]!.n,
        );
      const violations: string[] = [];
      const monitor = (async () => {
        while (writing || (await pendingCount()) > 0) {
          const rows = await db.sql.unsafe(
            `SELECT r.aggregate_id FROM (${tables.inboxRows}) r WHERE r.state = 'processing'
             GROUP BY r.aggregate_id HAVING count(*) > 1`,
          );
          violations.push(...rows.map((r) => String(r.aggregate_id)));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      })();
      const relay = async (s: InboxStore) => {
        while (writing || (await pendingCount()) > 0) {
          const claimed = await s.claimForRelay(5, LEASE);
          // Interleave: give the other replica a chance to claim between claim and forward.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
          if (claimed.length > 0) await forwardWith(s, claimed);
        }
      };
      const forwardWith = (s: InboxStore, claimed: readonly RelayClaimedMessage[]) =>
        s.forward(
          claimed.map((m) => ({
            fence: { id: m.id, claimToken: m.claimToken },
            outbox: {
              topic: 't',
              key: m.aggregateId,
              headers: { 'x-inbox-id': m.id },
            },
          })),
        );
      try {
        await Promise.all([writer, relay(store), relay(replica), monitor]);
      } finally {
        await second.end();
      }
      expect(violations).toEqual([]);
      const outbox = await db.sql.unsafe(
        `SELECT r.key, r.headers->>'x-inbox-id' AS inbox_id FROM (${tables.outboxRows}) r ORDER BY r.sequence`,
      );
      // Exactly one outbox row per inbox row, and per key in the order the rows were stored.
      expect(outbox.map((r) => r.inbox_id as string).sort()).toEqual([...created].sort());
      for (const aggregateId of aggregates) {
        const stored = (
          await db.sql.unsafe(
            `SELECT r.id FROM (${tables.inboxRows}) r WHERE r.aggregate_id = $1 ORDER BY r.created_at, r.scheduled_at`,
            [aggregateId],
          )
        ).map((r) => r.id as string);
        expect(
          outbox.filter((r) => r.key === aggregateId).map((r) => r.inbox_id as string),
        ).toEqual(stored);
      }
    });

    it('claims nothing when nothing is due and leaves no lock behind', async () => {
      expect(await store.claimForRelay(10, LEASE)).toEqual([]);
      const [locks] = await db.sql`SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
      expect(locks!.n).toBe(0);
    });
  });
}
