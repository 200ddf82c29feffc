import type { RetentionStore } from '@queuebox/core';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { TestClock } from '@queuebox/testing/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultSchema, renamedSchema } from '../../test/outbox-schema.js';
import { createPostgresRetentionStore } from './retention-store.js';

const pg = await requireService('postgres', 'postgres: retention store');

const HOUR = 3_600_000;

for (const schema of [defaultSchema, renamedSchema]) {
  describe.skipIf(!pg.available)(`retention store on PostgreSQL: ${schema.label}`, () => {
    let db: FreshDatabase;
    let retention: RetentionStore;
    const { outbox, inbox, outboxColumns: o, inboxColumns: i } = schema.tables;

    beforeAll(async () => {
      if (!pg.available) return;
      db = await createFreshDatabase(pg.url);
      await schema.create(db.sql);
      retention = createPostgresRetentionStore(db.sql, schema.tables, new TestClock());
    });

    afterAll(async () => {
      await db?.drop();
    });

    beforeEach(async () => {
      await db.sql.unsafe(`TRUNCATE ${outbox}, ${inbox}`);
    });

    /** Outbox rows with an updated_at `ageMs` in the past; returns their ids. */
    async function outboxRows(state: string, count: number, ageMs: number): Promise<string[]> {
      const rows = await db.sql.unsafe<{ id: string }[]>(
        `INSERT INTO ${outbox} (${o.topic}, ${o.payload}, ${o.state}, ${o.updatedAt})
         SELECT 't', '{}'::jsonb, $1, clock_timestamp() - $2::integer * interval '1 millisecond' - g * interval '1 second'
         FROM generate_series(1, $3::integer) AS g
         RETURNING ${o.id}::text AS "id"`,
        [state, ageMs, count],
      );
      return rows.map((r) => r.id);
    }

    async function inboxRows(state: string, count: number, ageMs: number): Promise<void> {
      await db.sql.unsafe(
        `INSERT INTO ${inbox} (${i.source}, ${i.idempotencyKey}, ${i.payload}, ${i.state}, ${i.createdAt})
         SELECT 'src', $1 || '-' || $2::text || '-' || g, '{}'::jsonb, $1, clock_timestamp() - $2::integer * interval '1 millisecond'
         FROM generate_series(1, $3::integer) AS g`,
        [state, ageMs, count],
      );
    }

    async function outboxCounts(): Promise<Record<string, number>> {
      const rows = await db.sql.unsafe<{ state: string; n: number }[]>(
        `SELECT ${o.state} AS "state", count(*)::int AS "n" FROM ${outbox} GROUP BY 1`,
      );
      return Object.fromEntries(rows.map((r) => [r.state, r.n]));
    }

    async function inboxCounts(): Promise<Record<string, number>> {
      const rows = await db.sql.unsafe<{ state: string; n: number }[]>(
        `SELECT ${i.state} AS "state", count(*)::int AS "n" FROM ${inbox} GROUP BY 1`,
      );
      return Object.fromEntries(rows.map((r) => [r.state, r.n]));
    }

    it('outbox AGE deletes old rows of the one state asked for, in batches, by updated_at', async () => {
      await outboxRows('sent', 5, 2 * HOUR);
      await outboxRows('sent', 2, 0);
      await outboxRows('dead', 3, 2 * HOUR);
      await outboxRows('pending', 2, 2 * HOUR);
      await outboxRows('processing', 2, 2 * HOUR);
      const cutoff = new Date(Date.now() - HOUR);
      const batches = [];
      for (let n = 2; n === 2;)
        batches.push((n = await retention.deleteOlderThan('outbox', 'sent', cutoff, 2)));
      expect(batches).toEqual([2, 2, 1]);
      expect(await outboxCounts()).toEqual({ sent: 2, dead: 3, pending: 2, processing: 2 });
      expect(await retention.deleteOlderThan('outbox', 'dead', cutoff, 100)).toBe(3);
      expect(await outboxCounts()).toEqual({ sent: 2, pending: 2, processing: 2 });
    });

    it('outbox COUNT keeps the most recent rows per state and deletes the rest in batches', async () => {
      const sent = await outboxRows('sent', 6, 0);
      await outboxRows('dead', 4, 0);
      await outboxRows('pending', 3, HOUR);
      // generate_series makes row g older by g seconds: the first ids are the most recent.
      expect(await retention.deleteBeyondCount('outbox', 'sent', 2, 3)).toBe(3);
      expect(await retention.deleteBeyondCount('outbox', 'sent', 2, 3)).toBe(1);
      expect(await retention.deleteBeyondCount('outbox', 'sent', 2, 3)).toBe(0);
      const left = await db.sql.unsafe<{ id: string }[]>(
        `SELECT ${o.id}::text AS "id" FROM ${outbox} WHERE ${o.state} = 'sent' ORDER BY ${o.updatedAt} DESC`,
      );
      expect(left.map((r) => r.id)).toEqual(sent.slice(0, 2));
      expect(await retention.deleteBeyondCount('outbox', 'dead', 0, 10)).toBe(4);
      expect(await outboxCounts()).toEqual({ sent: 2, pending: 3 });
    });

    it('inbox AGE measures created_at and deletes only processed and dead rows', async () => {
      await inboxRows('processed', 3, 2 * HOUR);
      await inboxRows('processed', 1, 0);
      await inboxRows('dead', 2, 2 * HOUR);
      await inboxRows('pending', 2, 2 * HOUR);
      await inboxRows('processing', 1, 2 * HOUR);
      const cutoff = new Date(Date.now() - HOUR);
      expect(await retention.deleteOlderThan('inbox', 'processed', cutoff, 2)).toBe(2);
      expect(await retention.deleteOlderThan('inbox', 'processed', cutoff, 2)).toBe(1);
      expect(await retention.deleteOlderThan('inbox', 'dead', cutoff, 2)).toBe(2);
      expect(await inboxCounts()).toEqual({ processed: 1, pending: 2, processing: 1 });
    });

    it('inbox AGE counts from receipt (created_at), not from processing or scheduling', async () => {
      // The dedup window of promise G4 is the retention period measured from receipt: a message
      // received 2 h ago and processed (or scheduled) only now is past a 1 h retention, and one
      // received now is not, whatever its other times say.
      const at = (ageMs: number) => new Date(Date.now() - ageMs);
      const insert = (key: string, created: Date, processed: Date, scheduled: Date) =>
        db.sql.unsafe(
          `INSERT INTO ${inbox} (${i.source}, ${i.idempotencyKey}, ${i.payload}, ${i.state},
             ${i.createdAt}, ${i.processedAt}, ${i.scheduledAt})
           VALUES ('src', $1, '{}'::jsonb, 'processed', $2, $3, $4)`,
          [key, created, processed, scheduled],
        );
      await insert('received-long-ago', at(2 * HOUR), at(0), at(0));
      await insert('received-now', at(0), at(3 * HOUR), at(3 * HOUR));
      expect(await retention.deleteOlderThan('inbox', 'processed', at(HOUR), 10)).toBe(1);
      const left = await db.sql.unsafe<{ key: string }[]>(
        `SELECT ${i.idempotencyKey} AS "key" FROM ${inbox}`,
      );
      expect(left.map((r) => r.key)).toEqual(['received-now']);
    });

    it('refuses any state that is not terminal for its table, and the inbox COUNT policy', async () => {
      await outboxRows('pending', 2, 2 * HOUR);
      await inboxRows('pending', 2, 2 * HOUR);
      const cutoff = new Date();
      // What a JS caller (or a cast) could pass: the adapter must refuse it at run time.
      const loose: {
        deleteOlderThan(table: string, state: string, cutoff: Date, batch: number): Promise<number>;
        deleteBeyondCount(
          table: string,
          state: string,
          keep: number,
          batch: number,
        ): Promise<number>;
      } = retention;
      for (const [table, state] of [
        ['outbox', 'pending'],
        ['outbox', 'processing'],
        ['outbox', 'processed'],
        ['inbox', 'pending'],
        ['inbox', 'processing'],
        ['inbox', 'sent'],
      ] as const) {
        await expect(
          loose.deleteOlderThan(table, state, cutoff, 10),
          `${table} ${state}`,
        ).rejects.toThrow(/refuses/);
      }
      await expect(loose.deleteBeyondCount('outbox', 'pending', 0, 10)).rejects.toThrow(/refuses/);
      await expect(loose.deleteBeyondCount('inbox', 'processed', 0, 10)).rejects.toThrow(
        /no COUNT/,
      );
      await expect(retention.deleteOlderThan('outbox', 'sent', cutoff, 0)).rejects.toThrow(
        /batchSize/,
      );
      await expect(retention.deleteBeyondCount('outbox', 'sent', -1, 10)).rejects.toThrow(/keep/);
      expect(await outboxCounts()).toEqual({ pending: 2 });
      expect(await inboxCounts()).toEqual({ pending: 2 });
    });

    it('re-checks the state: a row replayed while the delete waits on it survives', async () => {
      const [id] = await outboxRows('sent', 1, 2 * HOUR);
      const replayer = await db.sql.reserve();
      try {
        await replayer`BEGIN`;
        await replayer.unsafe(`UPDATE ${outbox} SET ${o.state} = 'pending' WHERE ${o.id} = $1`, [
          id!,
        ]);
        const deleting = retention.deleteOlderThan(
          'outbox',
          'sent',
          new Date(Date.now() - HOUR),
          10,
        );
        await new Promise((resolve) => setTimeout(resolve, 150));
        await replayer`COMMIT`;
        expect(await deleting).toBe(0);
      } finally {
        replayer.release();
      }
      expect(await outboxCounts()).toEqual({ pending: 1 });
    });
  });
}
