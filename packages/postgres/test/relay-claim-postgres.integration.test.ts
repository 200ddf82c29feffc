/**
 * What only PostgreSQL shows about the relay claim, beside the relay contract of
 * @queuebox/testing (test/contracts): claims are serialised across replicas by the reference's
 * transaction-scoped advisory lock on the inbox table name, and none is left behind.
 */
import { javaStringHashCode, type InboxStore } from '@queuebox/core';
import { createPostgresInboxStore, type TableNames } from '@queuebox/postgres';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { inboxInsert } from '@queuebox/testing/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LAYOUTS } from '@queuebox/testing/contracts';
import { createLayout } from './contracts/layouts.js';

const pg = await requireService('postgres', 'postgres: relay claim, PostgreSQL only');

const LEASE = 60_000;

for (const layout of LAYOUTS) {
  describe.skipIf(!pg.available)(`relay claim on PostgreSQL only: ${layout}`, () => {
    let db: FreshDatabase;
    let tables: TableNames;
    let store: InboxStore;

    beforeAll(async () => {
      if (!pg.available) return;
      db = await createFreshDatabase(pg.url);
      tables = await createLayout(db.sql, layout);
      store = createPostgresInboxStore(db.sql, tables, { now: () => new Date() });
    });

    afterAll(async () => {
      await db?.drop();
    });

    beforeEach(async () => {
      await db.sql.unsafe(`DELETE FROM ${tables.inbox}`);
    });

    it("waits for the reference's advisory lock on the inbox table name", async () => {
      const key = javaStringHashCode(tables.inbox.slice(1, -1));
      if (layout === 'default tables') expect(key).toBe(100344454);
      await store.store(inboxInsert(), { initialDelayMs: 0 });
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

    it('leaves no advisory lock behind when nothing is due', async () => {
      expect(await store.claimForRelay(10, LEASE)).toEqual([]);
      const [locks] = await db.sql`SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
      expect(locks!.n).toBe(0);
    });
  });
}
