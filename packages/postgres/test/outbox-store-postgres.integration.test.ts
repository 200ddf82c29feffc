/**
 * What only PostgreSQL can show about the outbox store, beside the contract of @queuebox/testing
 * (test/contracts): the claim transaction's settings, jsonb's own text, and the EvalPlanQual
 * re-check when a candidate row changed after the claim's snapshot.
 */
import { compileTopicPattern, type ClaimedOutboxMessage, type OutboxStore } from '@queuebox/core';
import { createPostgresOutboxStore, type TableNames } from '@queuebox/postgres';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { outboxInsert as message, TestClock } from '@queuebox/testing/contracts';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LAYOUTS } from '@queuebox/testing/contracts';
import { createLayout } from './contracts/layouts.js';

const pg = await requireService('postgres', 'postgres: outbox store, PostgreSQL only');

const LEASE = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const layout of LAYOUTS) {
  describe.skipIf(!pg.available)(`outbox store on PostgreSQL only: ${layout}`, () => {
    let db: FreshDatabase;
    let tables: TableNames;
    let clock: TestClock;
    let store: OutboxStore;

    beforeAll(async () => {
      if (!pg.available) return;
      db = await createFreshDatabase(pg.url);
      tables = await createLayout(db.sql, layout);
    });

    afterAll(async () => {
      await db?.drop();
    });

    beforeEach(async () => {
      clock = new TestClock();
      store = createPostgresOutboxStore(db.sql, tables, clock);
      await db.sql.unsafe(`TRUNCATE ${tables.outbox}`);
    });

    it('returns the payload as jsonb writes it, every number exactly as stored', async () => {
      const c = tables.outboxColumns;
      await db.sql.unsafe(
        `INSERT INTO ${tables.outbox} (${c.topic}, ${c.payload}) VALUES ('a.numbers', $1::text::jsonb)`,
        ['{"id": 12345678901234567890, "amount": 1.50, "big": 1e30}'],
      );
      const [claimed] = await store.claim(1, LEASE);
      expect(claimed!.payload.text).toBe(
        '{"id": 12345678901234567890, "big": 1000000000000000000000000000000, "amount": 1.50}',
      );
    });

    it('relaxes the commit and the planner of the claim transaction only', async () => {
      // One connection, so the SHOW below runs where the claim ran.
      const connection = postgres(db.url, { max: 1, onnotice: () => undefined });
      try {
        const own = createPostgresOutboxStore(connection, tables, clock);
        await own.insert([message('a'), message('b')]);
        expect(await own.claim(1, LEASE)).toHaveLength(1);
        const [setting] = await connection<
          { synchronous_commit: string; enable_bitmapscan: string }[]
        >`SELECT current_setting('synchronous_commit') AS synchronous_commit,
                 current_setting('enable_bitmapscan') AS enable_bitmapscan`;
        expect(setting).toEqual({ synchronous_commit: 'on', enable_bitmapscan: 'on' });
        const durable = createPostgresOutboxStore(connection, tables, clock, {
          asyncClaimCommit: false,
        });
        expect((await durable.claim(5, LEASE)).map((m) => m.topic)).toEqual(['b']);
      } finally {
        await connection.end();
      }
    });

    it('refuses one id twice in a completion batch, all sent or mixed, and writes nothing', async () => {
      await store.insert([message('a'), message('b')]);
      const [first, second] = await store.claim(2, LEASE);
      const fence = { id: first!.id, claimToken: first!.claimToken };
      const other = { id: second!.id, claimToken: second!.claimToken };
      await expect(
        store.complete([
          { kind: 'sent', fence },
          { kind: 'sent', fence: other },
          { kind: 'sent', fence },
        ]),
      ).rejects.toThrow(/appears twice/);
      await expect(
        store.complete([
          { kind: 'sent', fence },
          { kind: 'dead', fence, error: 'x' },
        ]),
      ).rejects.toThrow(/appears twice/);
      const c = tables.outboxColumns;
      const states = await db.sql.unsafe<{ state: string }[]>(
        `SELECT ${c.state} AS state FROM ${tables.outbox}`,
      );
      expect(states.map((row) => row.state)).toEqual(['processing', 'processing']);
      expect(
        await store.complete([
          { kind: 'sent', fence },
          { kind: 'sent', fence: other },
        ]),
      ).toEqual(new Set([fence.id, other.id]));
    });

    it('passes over the topics of a rule exactly as the router reads the glob, unless an earlier route wins', async () => {
      const topics = [
        'orders.a',
        'orders.a.b',
        'orders.keep',
        'orders.',
        'orders.a\nb',
        'orders.(x)+[y]$^|\\',
        'ordersXa',
        'other',
      ];
      await store.insert(topics.map((topic) => message(topic)));
      const rules = [
        { pattern: 'orders.**', unless: ['orders.keep', '*.*.*'] },
        { pattern: 'orders.(x)+[y]$^|\\', unless: [] },
      ];
      const expected = topics.filter(
        (topic) =>
          !rules.some(
            (rule) =>
              compileTopicPattern(rule.pattern).test(topic) &&
              !rule.unless.some((glob) => compileTopicPattern(glob).test(topic)),
          ),
      );
      const claimed = await store.claim(20, LEASE, { passOver: rules });
      expect(claimed.map((m) => m.topic).sort()).toEqual([...expected].sort());
      expect(expected.sort()).toEqual(['orders.a.b', 'orders.keep', 'ordersXa', 'other']);
      // Passed over means untouched: still pending, never claimed.
      const c = tables.outboxColumns;
      const untouched = await db.sql.unsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM ${tables.outbox} WHERE ${c.state} = 'pending' AND ${c.claimToken} IS NULL`,
      );
      expect(untouched[0]!.n).toBe(topics.length - expected.length);
    });

    describe('a row claimed by someone else while this claim runs (EvalPlanQual)', () => {
      /**
       * Deterministic interleaving: a test-only trigger stalls the claim of one named connection
       * on its first row update, after the claim's snapshot was taken and its candidates sorted.
       * Meanwhile another claimer takes (and commits) the second candidate. When the stalled
       * claim goes on, LockRows finds that row updated after its snapshot and re-checks the
       * newest version — the path where a Tid Scan re-checks nothing itself.
       */
      async function withStalledClaim(
        during: (stalled: Promise<ClaimedOutboxMessage[]>) => Promise<void>,
      ): Promise<ClaimedOutboxMessage[]> {
        const app = 'qb_stalling_claimer';
        await db.sql
          .unsafe(`CREATE OR REPLACE FUNCTION qb_test_stall() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF current_setting('application_name') = '${app}' THEN PERFORM pg_advisory_xact_lock(4242); END IF;
            RETURN NEW;
          END $$`);
        await db.sql.unsafe(
          `CREATE TRIGGER qb_test_stall BEFORE UPDATE ON ${tables.outbox} FOR EACH ROW EXECUTE FUNCTION qb_test_stall()`,
        );
        const gate = await db.sql.reserve();
        const client = postgres(db.url, {
          max: 1,
          onnotice: () => undefined,
          connection: { application_name: app },
        });
        try {
          await gate`SELECT pg_advisory_lock(4242)`;
          const stalled = createPostgresOutboxStore(client, tables, clock).claim(10, LEASE);
          for (let waited = 0; ; waited += 10) {
            const [row] = await db.sql<{ n: number }[]>`
              SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${app} AND wait_event_type = 'Lock'`;
            if (row!.n > 0) break;
            if (waited > 5_000) throw new Error('the claim never reached the stall');
            await sleep(10);
          }
          await during(stalled);
          await gate`SELECT pg_advisory_unlock(4242)`;
          return await stalled;
        } finally {
          gate.release();
          await client.end({ timeout: 5 });
          await db.sql.unsafe(`DROP TRIGGER qb_test_stall ON ${tables.outbox}`);
        }
      }

      it('passes over a candidate that another claimer took after this claim began', async () => {
        await store.insert([message('first'), message('second')]);
        let other: ClaimedOutboxMessage[] = [];
        const stalled = await withStalledClaim(async () => {
          // "first" is locked by the stalled claim, so the other claimer takes "second".
          other = await store.claim(10, LEASE);
        });
        expect(other.map((m) => m.topic)).toEqual(['second']);
        expect(stalled.map((m) => m.topic)).toEqual(['first']);
        const c = tables.outboxColumns;
        const [row] = await db.sql.unsafe<{ token: string }[]>(
          `SELECT ${c.claimToken}::text AS "token" FROM ${tables.outbox} WHERE ${c.id} = $1`,
          [other[0]!.id],
        );
        expect(row!.token).toBe(other[0]!.claimToken);
      });

      it('never passes a key on: a head taken and completed meanwhile does not release its successor to the stale claim', async () => {
        await store.insert([message('free'), message('k-1', 'k'), message('k-2', 'k')]);
        let other: ClaimedOutboxMessage[] = [];
        const stalled = await withStalledClaim(async () => {
          other = await store.claim(10, LEASE);
          expect(other.map((m) => m.topic)).toEqual(['k-1']);
          await store.complete([{ kind: 'sent', fence: other[0]! }]);
        });
        // The stale snapshot saw k-1 pending: k-1 is now sent (rejected), and k-2 was never its head.
        expect(stalled.map((m) => m.topic)).toEqual(['free']);
        expect((await store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['k-2']);
      });
    });
  });
}
