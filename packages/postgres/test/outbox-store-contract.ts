import type { ClaimedOutboxMessage, OutboxStore } from '@queuebox/core';
import postgres from 'postgres';
import { beforeEach, describe, expect, it } from 'vitest';
import { createPostgresOutboxStore } from '../src/outbox/outbox-store.js';
import type { TableNames } from '../src/schema/table-names.js';
import { message, OutboxRows, TestClock } from './outbox-fixtures.js';

export interface OutboxContractContext {
  readonly sql: postgres.Sql;
  readonly url: string;
  readonly tables: TableNames;
}

const LEASE = 30_000;
const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The outbox store contract (spec §4.2, §4.4, §4.1, §11.6), run once per schema: the default
 * tables and a schema with every table and column renamed. `context` is read lazily because the
 * database is created in the caller's beforeAll.
 */
export function outboxStoreContract(context: () => OutboxContractContext): void {
  let clock: TestClock;
  let store: OutboxStore;
  let rows: OutboxRows;

  beforeEach(async () => {
    const { sql, tables } = context();
    clock = new TestClock();
    store = createPostgresOutboxStore(sql, tables, clock);
    rows = new OutboxRows(sql, tables);
    await rows.clear();
  });

  describe('insert', () => {
    it('writes defaults for the optional fields and leaves sequence to the database, in array order', async () => {
      const due = new Date(Date.now() + 60_000);
      await store.insert([
        message('a.one', 'k'),
        {
          topic: 'a.two',
          payload: [1, 2],
          headers: { 'x-h': 'v' },
          aggregateType: 'Order',
          maxAttempts: 9,
          scheduledAt: due,
        },
        { id: '2f1e9c7a-3a44-4a55-9c7e-0a1b2c3d4e5f', topic: 'a.three', payload: { n: 3 } },
      ]);
      const all = await rows.all();
      expect(all.map((r) => r.topic)).toEqual(['a.one', 'a.two', 'a.three']);
      const [one, two, three] = all;
      expect(one).toMatchObject({
        state: 'pending',
        attempt: 0,
        maxAttempts: 5,
        headers: {},
        key: 'k',
        claimToken: null,
      });
      expect(one!.payload).toEqual({ topic: 'a.one', key: 'k' });
      expect(two).toMatchObject({
        payload: [1, 2],
        headers: { 'x-h': 'v' },
        aggregateType: 'Order',
        maxAttempts: 9,
        key: null,
      });
      expect(two!.scheduledAt.getTime()).toBe(due.getTime());
      expect(three!.id).toBe('2f1e9c7a-3a44-4a55-9c7e-0a1b2c3d4e5f');
      expect(
        BigInt(one!.sequence) < BigInt(two!.sequence) &&
          BigInt(two!.sequence) < BigInt(three!.sequence),
      ).toBe(true);
    });

    it('accepts an empty batch', async () => {
      await store.insert([]);
      expect(await rows.all()).toEqual([]);
    });
  });

  describe('claim', () => {
    it('takes only due pending rows and leaves others alone', async () => {
      const [due] = await rows.insertRaw([{ topic: 'due' }]);
      await rows.insertRaw([
        { topic: 'later', scheduledAt: new Date(Date.now() + 3_600_000) },
        { topic: 'sent', state: 'sent' },
        { topic: 'dead', state: 'dead' },
        { topic: 'busy', state: 'processing' },
      ]);
      const claimed = await store.claim(10, LEASE);
      expect(ids(claimed)).toEqual([due]);
      expect(claimed[0]).toMatchObject({
        state: 'processing',
        topic: 'due',
        attempt: 0,
        maxAttempts: 5,
      });
      expect(typeof claimed[0]!.sequence).toBe('bigint');
      const states = Object.fromEntries((await rows.all()).map((r) => [r.topic, r.state]));
      expect(states).toEqual({
        due: 'processing',
        later: 'pending',
        sent: 'sent',
        dead: 'dead',
        busy: 'processing',
      });
    });

    it('returns the payload as jsonb writes it, every number exactly as stored', async () => {
      const { sql, tables } = context();
      const c = tables.outboxColumns;
      await sql.unsafe(
        `INSERT INTO ${tables.outbox} (${c.topic}, ${c.payload}) VALUES ('a.numbers', $1::text::jsonb)`,
        ['{"id": 12345678901234567890, "amount": 1.50, "big": 1e30}'],
      );
      const [claimed] = await store.claim(1, LEASE);
      expect(claimed!.payload.text).toBe(
        '{"id": 12345678901234567890, "big": 1000000000000000000000000000000, "amount": 1.50}',
      );
    });

    it('judges "due" by the app clock', async () => {
      await rows.insertRaw([
        { topic: 'in-an-hour', scheduledAt: new Date(Date.now() + 3_600_000) },
      ]);
      expect(await store.claim(10, LEASE)).toEqual([]);
      clock.shift(3_600_000 + 1_000);
      expect((await store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['in-an-hour']);
    });

    it('writes token, claimed_at/updated_at on the app clock and the lease on the DB clock', async () => {
      const [id] = await rows.insertRaw([{ topic: 't' }]);
      const appNow = new Date(Date.now() + 86_400_000);
      clock.pin(appNow);
      const before = await rows.dbNow();
      const [claimed] = await store.claim(1, LEASE);
      const after = await rows.dbNow();
      const row = await rows.get(id!);
      expect(row.state).toBe('processing');
      expect(row.claimToken).toBe(claimed!.claimToken);
      expect(row.claimToken).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.claimedAt!.getTime()).toBe(appNow.getTime());
      expect(row.updatedAt.getTime()).toBe(appNow.getTime());
      // The app clock is a day ahead; the lease must not follow it.
      expect(row.leaseExpiresAt!.getTime()).toBeGreaterThanOrEqual(before.getTime() + LEASE - 1);
      expect(row.leaseExpiresAt!.getTime()).toBeLessThanOrEqual(after.getTime() + LEASE + 1);
    });

    it('gives every claim a fresh token', async () => {
      const [id] = await rows.insertRaw([{ topic: 't' }]);
      const [first] = await store.claim(1, LEASE);
      await rows.expireLease(id!);
      expect(await store.reclaimExpired()).toBe(1);
      const [second] = await store.claim(1, LEASE);
      expect(second!.id).toBe(first!.id);
      expect(second!.claimToken).not.toBe(first!.claimToken);
    });

    it('respects the limit and returns rows sorted by (scheduled_at, created_at)', async () => {
      const base = Date.now() - 60_000;
      await rows.insertRaw([
        { topic: 'c', scheduledAt: new Date(base + 3_000) },
        { topic: 'a', scheduledAt: new Date(base + 1_000) },
        { topic: 'd', scheduledAt: new Date(base + 4_000) },
        { topic: 'b', scheduledAt: new Date(base + 2_000) },
      ]);
      expect((await store.claim(3, LEASE)).map((m) => m.topic)).toEqual(['a', 'b', 'c']);
      expect((await store.claim(3, LEASE)).map((m) => m.topic)).toEqual(['d']);
      expect(await store.claim(3, LEASE)).toEqual([]);
    });

    it('orders by scheduled_at before sequence, and by sequence inside one scheduled_at', async () => {
      const past = new Date(Date.now() - 60_000);
      // One multi-row insert: every row without a schedule shares one CURRENT_TIMESTAMP.
      await store.insert([
        message('tie-1'),
        message('tie-2'),
        message('tie-3'),
        message('early', null, { scheduledAt: past }),
      ]);
      const claimed = await store.claim(2, LEASE);
      expect(claimed.map((m) => m.topic)).toEqual(['early', 'tie-1']);
      expect((await store.claim(5, LEASE)).map((m) => m.topic)).toEqual(['tie-2', 'tie-3']);
    });

    it('relaxes the commit and the planner of the claim transaction only', async () => {
      const { url, tables } = context();
      // One connection, so the SHOW below runs where the claim ran.
      const connection = postgres(url, { max: 1, onnotice: () => undefined });
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

    it('refuses a non-positive limit and a lease outside [1, 2^31-1]', async () => {
      await expect(store.claim(0, LEASE)).rejects.toThrow(/batch size/);
      await expect(store.claim(1.5, LEASE)).rejects.toThrow(/batch size/);
      await expect(store.claim(1, 0)).rejects.toThrow(/lease/);
      await expect(store.claim(1, 2 ** 31)).rejects.toThrow(/lease/);
      await rows.insertRaw([{ topic: 't' }]);
      const [claimed] = await store.claim(1, 2 ** 31 - 1);
      expect(claimed).toBeDefined();
    });
  });

  describe('key order', () => {
    it('claims the rows of one key one at a time, in sequence order', async () => {
      await store.insert([message('k-1', 'k'), message('k-2', 'k'), message('k-3', 'k')]);
      const delivered: string[] = [];
      for (let i = 0; i < 3; i++) {
        const claimed = await store.claim(10, LEASE);
        expect(claimed).toHaveLength(1);
        delivered.push(claimed[0]!.topic);
        // Still in flight: the key stays held.
        expect(await store.claim(10, LEASE)).toEqual([]);
        await store.complete([{ kind: 'sent', fence: claimed[0]! }]);
      }
      expect(delivered).toEqual(['k-1', 'k-2', 'k-3']);
      expect(await store.claim(10, LEASE)).toEqual([]);
    });

    it('a row waiting for its retry holds back the later rows of its key', async () => {
      await store.insert([message('k-1', 'k'), message('k-2', 'k'), message('other', 'j')]);
      const first = await store.claim(10, LEASE);
      expect(first.map((m) => m.topic).sort()).toEqual(['k-1', 'other']);
      const k1 = first.find((m) => m.topic === 'k-1')!;
      await store.complete([{ kind: 'retry', fence: k1, delayMs: 60_000, error: 'boom' }]);
      expect(await store.claim(10, LEASE)).toEqual([]);
      clock.shift(61_000);
      expect((await store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['k-1']);
    });

    it('a processing row holds its key even when its lease expired, until reclaimed', async () => {
      await store.insert([message('k-1', 'k'), message('k-2', 'k')]);
      const [k1] = await store.claim(10, LEASE);
      await rows.expireLease(k1!.id);
      expect(await store.claim(10, LEASE)).toEqual([]);
      await store.reclaimExpired();
      expect((await store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['k-1']);
    });

    it('a head in flight with a backlog larger than the window delays no NULL-key row or other key', async () => {
      await store.insert([message('k-head', 'k')]);
      const [head] = await store.claim(1, LEASE);
      expect(head!.topic).toBe('k-head');
      // 300 rows of k behind it, due first; the window of a batch of 100 is 256 rows.
      await store.insert(Array.from({ length: 300 }, (_, n) => message(`k-${n}`, 'k')));
      await store.insert([message('loose'), message('other', 'j')]);
      expect((await store.claim(100, LEASE)).map((m) => m.topic)).toEqual(['loose', 'other']);
    });

    it('a row in flight holds its key even against a replayed row with a lower sequence', async () => {
      await store.insert([message('k-1', 'k'), message('k-2', 'k')]);
      const [k1] = await store.claim(10, LEASE);
      await store.complete([{ kind: 'dead', fence: k1!, error: 'poison' }]);
      const [k2] = await store.claim(10, LEASE);
      expect(k2!.topic).toBe('k-2');
      // k-1 comes back with its old sequence while k-2 is in flight: one row of a key at a time.
      expect(await store.replay({ ids: [k1!.id] })).toBe(1);
      expect(await store.claim(10, LEASE)).toEqual([]);
      await store.complete([{ kind: 'sent', fence: k2! }]);
      expect((await store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['k-1']);
    });

    it('a dead row releases its key', async () => {
      await store.insert([message('k-1', 'k'), message('k-2', 'k')]);
      const [k1] = await store.claim(10, LEASE);
      await store.complete([{ kind: 'dead', fence: k1!, error: 'poison' }]);
      expect((await store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['k-2']);
    });

    it('a sent row does not count', async () => {
      const [a, b] = await rows.insertRaw([
        { topic: 'old', key: 'k', state: 'sent' },
        { topic: 'new', key: 'k' },
      ]);
      expect(ids(await store.claim(10, LEASE))).toEqual([b]);
      expect(a).toBeDefined();
    });

    it('claims NULL and empty keys in parallel, and different keys side by side', async () => {
      await store.insert([
        message('n-1'),
        message('n-2'),
        message('e-1', ''),
        message('e-2', ''),
        message('a-1', 'a'),
        message('a-2', 'a'),
        message('b-1', 'b'),
      ]);
      const claimed = await store.claim(10, LEASE);
      expect(claimed.map((m) => m.topic).sort()).toEqual([
        'a-1',
        'b-1',
        'e-1',
        'e-2',
        'n-1',
        'n-2',
      ]);
    });

    it('does not take the next row of a key whose head another transaction holds locked', async () => {
      const { sql, tables } = context();
      const c = tables.outboxColumns;
      await store.insert([message('k-1', 'k'), message('k-2', 'k'), message('free', 'f')]);
      const [head] = await rows.all();
      const holder = await sql.reserve();
      try {
        await holder`BEGIN`;
        await holder.unsafe(`SELECT 1 FROM ${tables.outbox} WHERE ${c.id} = $1 FOR UPDATE`, [
          head!.id,
        ]);
        // SKIP LOCKED passes over the head; its successor is still not the head of its key.
        expect((await store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['free']);
        await holder`ROLLBACK`;
      } finally {
        holder.release();
      }
      expect((await store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['k-1']);
    });

    it('a head that another transaction is about to complete keeps its key held until that commits', async () => {
      const { sql, tables } = context();
      const c = tables.outboxColumns;
      await store.insert([message('k-1', 'k'), message('k-2', 'k')]);
      const [k1] = await store.claim(10, LEASE);
      const writer = await sql.reserve();
      try {
        await writer`BEGIN`;
        await writer.unsafe(`UPDATE ${tables.outbox} SET ${c.state} = 'sent' WHERE ${c.id} = $1`, [
          k1!.id,
        ]);
        expect(await store.claim(10, LEASE)).toEqual([]);
        await writer`COMMIT`;
      } finally {
        writer.release();
      }
      expect((await store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['k-2']);
    });
  });

  describe('a row claimed by someone else while this claim runs (EvalPlanQual)', () => {
    /**
     * Deterministic interleaving: a test-only trigger stalls the claim of one named connection
     * on its first row update, after the claim's snapshot was taken and its candidates sorted.
     * Meanwhile another claimer takes (and commits) the second candidate. When the stalled claim
     * goes on, LockRows finds that row updated after its snapshot and re-checks the newest
     * version — the path where a Tid Scan re-checks nothing itself.
     */
    async function withStalledClaim(
      during: (stalled: Promise<ClaimedOutboxMessage[]>) => Promise<void>,
    ): Promise<ClaimedOutboxMessage[]> {
      const { sql, url, tables } = context();
      const app = 'qb_stalling_claimer';
      await sql.unsafe(`CREATE OR REPLACE FUNCTION qb_test_stall() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF current_setting('application_name') = '${app}' THEN PERFORM pg_advisory_xact_lock(4242); END IF;
          RETURN NEW;
        END $$`);
      await sql.unsafe(
        `CREATE TRIGGER qb_test_stall BEFORE UPDATE ON ${tables.outbox} FOR EACH ROW EXECUTE FUNCTION qb_test_stall()`,
      );
      const gate = await sql.reserve();
      const client = postgres(url, {
        max: 1,
        onnotice: () => undefined,
        connection: { application_name: app },
      });
      try {
        await gate`SELECT pg_advisory_lock(4242)`;
        const stalled = createPostgresOutboxStore(client, tables, clock).claim(10, LEASE);
        for (let waited = 0; ; waited += 10) {
          const [row] = await sql<{ n: number }[]>`
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
        await sql.unsafe(`DROP TRIGGER qb_test_stall ON ${tables.outbox}`);
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
      expect((await rows.get(other[0]!.id)).claimToken).toBe(other[0]!.claimToken);
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

  describe('fence', () => {
    async function claimTwo(): Promise<ClaimedOutboxMessage[]> {
      await store.insert([message('one'), message('two'), message('three'), message('four')]);
      return store.claim(10, LEASE);
    }

    it('a stale token changes nothing and is not returned', async () => {
      const [m] = await claimTwo();
      const stale = { id: m!.id, claimToken: '00000000-0000-4000-8000-000000000000' };
      const held = await store.complete([{ kind: 'sent', fence: stale }]);
      expect(held.size).toBe(0);
      expect((await rows.get(m!.id)).state).toBe('processing');
    });

    it('an expired lease changes nothing and is not returned', async () => {
      const [m] = await claimTwo();
      await rows.expireLease(m!.id);
      const before = await rows.get(m!.id);
      expect(
        (await store.complete([{ kind: 'retry', fence: m!, delayMs: 0, error: 'x' }])).size,
      ).toBe(0);
      expect(await rows.get(m!.id)).toEqual(before);
    });

    it('a row no longer processing changes nothing', async () => {
      const [m] = await claimTwo();
      await store.complete([{ kind: 'sent', fence: m! }]);
      const before = await rows.get(m!.id);
      expect((await store.complete([{ kind: 'dead', fence: m!, error: 'late' }])).size).toBe(0);
      expect(await rows.get(m!.id)).toEqual(before);
      expect(before.state).toBe('sent');
    });

    it('a mixed batch writes exactly the rows whose fence holds', async () => {
      const [a, b, c, d] = await claimTwo();
      await rows.expireLease(c!.id);
      await rows.setState(d!.id, 'pending');
      const held = await store.complete([
        { kind: 'sent', fence: a! },
        { kind: 'retry', fence: b!, delayMs: 1_000, error: 'retry me' },
        { kind: 'dead', fence: c!, error: 'expired' },
        { kind: 'sent', fence: d! },
        {
          kind: 'dead',
          fence: { id: 'b5a0c1d2-0000-4000-8000-000000000000', claimToken: a!.claimToken },
          error: 'nope',
        },
      ]);
      expect([...held].sort()).toEqual([a!.id, b!.id].sort());
      expect((await rows.get(a!.id)).state).toBe('sent');
      expect((await rows.get(b!.id)).state).toBe('pending');
      expect((await rows.get(c!.id)).state).toBe('processing');
      expect((await rows.get(d!.id)).state).toBe('pending');
    });

    it('a completion and a renewal over the same rows at once do not deadlock', async () => {
      const { url, tables } = context();
      const a = postgres(url, { max: 1, onnotice: () => undefined });
      const b = postgres(url, { max: 1, onnotice: () => undefined });
      try {
        const completer = createPostgresOutboxStore(a, tables, clock);
        const renewer = createPostgresOutboxStore(b, tables, clock);
        for (let round = 0; round < 10; round++) {
          await store.insert(Array.from({ length: 60 }, (_, i) => message(`r${round}.${i}`)));
          const claimed = await store.claim(60, LEASE);
          const [held] = await Promise.all([
            completer.complete(claimed.map((m) => ({ kind: 'sent' as const, fence: m }))),
            renewer.renew([...claimed].reverse(), LEASE),
          ]);
          expect(held.size).toBe(60);
        }
      } finally {
        await Promise.all([a.end({ timeout: 5 }), b.end({ timeout: 5 })]);
      }
    });

    it('refuses one id twice in a batch', async () => {
      const [a] = await claimTwo();
      await expect(
        store.complete([
          { kind: 'sent', fence: a! },
          { kind: 'dead', fence: a!, error: 'x' },
        ]),
      ).rejects.toThrow(/twice/);
      expect((await rows.get(a!.id)).state).toBe('processing');
    });

    it('an empty batch writes nothing', async () => {
      expect((await store.complete([])).size).toBe(0);
    });
  });

  describe('terminal writes', () => {
    it('sent: state and updated_at on the app clock; claim columns stay', async () => {
      await store.insert([message('t')]);
      const [m] = await store.claim(1, LEASE);
      const claimedRow = await rows.get(m!.id);
      const at = new Date(Date.now() + 5_000);
      clock.pin(at);
      await store.complete([{ kind: 'sent', fence: m! }]);
      const row = await rows.get(m!.id);
      expect(row).toMatchObject({
        state: 'sent',
        attempt: 0,
        claimToken: m!.claimToken,
        lastError: null,
      });
      expect(row.updatedAt.getTime()).toBe(at.getTime());
      expect(row.claimedAt).toEqual(claimedRow.claimedAt);
      expect(row.leaseExpiresAt).toEqual(claimedRow.leaseExpiresAt);
    });

    it('retry: pending at app now + delay, attempt + 1, claimed_at cleared, last_error written', async () => {
      await store.insert([message('t')]);
      const [m] = await store.claim(1, LEASE);
      const at = new Date(Date.now() + 1_000);
      clock.pin(at);
      await store.complete([{ kind: 'retry', fence: m!, delayMs: 2_500, error: 'HTTP 503' }]);
      const row = await rows.get(m!.id);
      expect(row).toMatchObject({
        state: 'pending',
        attempt: 1,
        claimedAt: null,
        lastError: 'HTTP 503',
      });
      expect(row.scheduledAt.getTime()).toBe(at.getTime() + 2_500);
      expect(row.updatedAt.getTime()).toBe(at.getTime());
    });

    it('dead: state, claimed_at cleared, last_error written, attempt unchanged', async () => {
      await store.insert([message('t')]);
      const [m] = await store.claim(1, LEASE);
      await store.complete([{ kind: 'dead', fence: m!, error: "No route matches topic 't'" }]);
      expect(await rows.get(m!.id)).toMatchObject({
        state: 'dead',
        attempt: 0,
        claimedAt: null,
        lastError: "No route matches topic 't'",
      });
    });

    it('attempt increments only on retry', async () => {
      await store.insert([message('t')]);
      for (let expected = 1; expected <= 3; expected++) {
        const [m] = await store.claim(1, LEASE);
        expect(m!.attempt).toBe(expected - 1);
        await store.complete([{ kind: 'retry', fence: m!, delayMs: 0, error: `fail ${expected}` }]);
        expect((await rows.get(m!.id)).attempt).toBe(expected);
      }
      const [m] = await store.claim(1, LEASE);
      await rows.expireLease(m!.id);
      await store.reclaimExpired();
      const [again] = await store.claim(1, LEASE);
      await store.complete([{ kind: 'sent', fence: again! }]);
      expect((await rows.get(m!.id)).attempt).toBe(3);
    });
  });

  describe('reclaim, renew, release', () => {
    it('reclaim returns expired and lease-less processing rows to pending without touching attempt', async () => {
      await store.insert([message('a'), message('b'), message('c')]);
      const claimed = await store.claim(10, LEASE);
      const [a, b, c] = claimed;
      await store.complete([{ kind: 'retry', fence: a!, delayMs: 0, error: 'e' }]);
      const [a2] = await store.claim(1, LEASE);
      expect(a2!.id).toBe(a!.id);
      await rows.expireLease(a!.id);
      await rows.nullLease(b!.id);
      const at = new Date(Date.now() + 7_000);
      clock.pin(at);
      expect(await store.reclaimExpired()).toBe(2);
      expect(await rows.get(a!.id)).toMatchObject({
        state: 'pending',
        attempt: 1,
        claimedAt: null,
      });
      expect((await rows.get(a!.id)).updatedAt.getTime()).toBe(at.getTime());
      expect(await rows.get(b!.id)).toMatchObject({
        state: 'pending',
        attempt: 0,
        claimedAt: null,
      });
      expect((await rows.get(c!.id)).state).toBe('processing');
      expect(await store.reclaimExpired()).toBe(0);
      // The old token of a reclaimed row fences nothing.
      expect((await store.complete([{ kind: 'sent', fence: a2! }])).size).toBe(0);
    });

    it('a real short lease expires on the DB clock', async () => {
      await store.insert([message('t')]);
      const [m] = await store.claim(1, 1);
      await sleep(20);
      expect(await store.reclaimExpired()).toBe(1);
      expect((await store.complete([{ kind: 'sent', fence: m! }])).size).toBe(0);
    });

    it('renew extends only the rows still owned', async () => {
      await store.insert([message('a'), message('b'), message('c'), message('d')]);
      const [a, b, c, d] = await store.claim(10, 1_000);
      await rows.expireLease(b!.id);
      await store.complete([{ kind: 'sent', fence: c! }]);
      const before = await rows.get(a!.id);
      const owned = await store.renew(
        [a!, b!, c!, { id: d!.id, claimToken: '00000000-0000-4000-8000-000000000000' }],
        120_000,
      );
      expect([...owned]).toEqual([a!.id]);
      const after = await rows.get(a!.id);
      expect(after.leaseExpiresAt!.getTime()).toBeGreaterThan(
        before.leaseExpiresAt!.getTime() + 100_000,
      );
      expect(after.updatedAt).toEqual(before.updatedAt);
      expect((await rows.get(b!.id)).leaseExpiresAt!.getTime()).toBeLessThan(Date.now() + 5_000);
      expect((await store.renew([], 1_000)).size).toBe(0);
      await expect(store.renew([a!], 0)).rejects.toThrow(/lease/);
    });

    it('release hands owned rows back to pending with attempt and schedule unchanged', async () => {
      await store.insert([message('a'), message('b')]);
      const [a, b] = await store.claim(10, LEASE);
      const scheduled = (await rows.get(a!.id)).scheduledAt;
      await rows.expireLease(b!.id);
      const released = await store.release!([a!, b!]);
      expect([...released]).toEqual([a!.id]);
      expect(await rows.get(a!.id)).toMatchObject({
        state: 'pending',
        attempt: 0,
        claimedAt: null,
        scheduledAt: scheduled,
      });
      expect((await rows.get(b!.id)).state).toBe('processing');
    });
  });

  describe('gauges and wake-up', () => {
    it('counts pending rows and measures the oldest one on the DB clock', async () => {
      expect(await store.gauges()).toEqual({ pending: 0, oldestPendingAgeSeconds: 0 });
      const { sql, tables } = context();
      const c = tables.outboxColumns;
      await store.insert([message('a'), message('b'), message('c')]);
      await sql.unsafe(
        `UPDATE ${tables.outbox} SET ${c.createdAt} = clock_timestamp() - interval '90 seconds' WHERE ${c.topic} = 'a'`,
      );
      const [claimed] = await store.claim(1, LEASE);
      expect(claimed!.topic).toBe('a');
      const gauges = await store.gauges();
      expect(gauges.pending).toBe(2);
      expect(gauges.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(0);
      expect(gauges.oldestPendingAgeSeconds).toBeLessThan(30);
      await store.complete([{ kind: 'retry', fence: claimed!, delayMs: 0, error: 'e' }]);
      const withOld = await store.gauges();
      expect(withOld.pending).toBe(3);
      expect(withOld.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(89);
      expect(withOld.oldestPendingAgeSeconds).toBeLessThan(120);
    });

    it('next wake: nearest schedule or lease, clamped to [1, max]', async () => {
      expect(await store.nextWakeDelayMs!(5_000)).toBe(5_000);
      await rows.insertRaw([{ topic: 'later', scheduledAt: new Date(Date.now() + 2_000) }]);
      const delay = await store.nextWakeDelayMs!(5_000);
      expect(delay).toBeGreaterThan(1_000);
      expect(delay).toBeLessThanOrEqual(2_000);
      await rows.insertRaw([{ topic: 'now' }]);
      expect(await store.nextWakeDelayMs!(5_000)).toBe(1);
      await store.claim(1, 300);
      await rows.clear();
      await store.insert([message('x')]);
      await store.claim(1, 300);
      const leaseDelay = await store.nextWakeDelayMs!(5_000);
      expect(leaseDelay).toBeGreaterThanOrEqual(1);
      expect(leaseDelay).toBeLessThanOrEqual(300);
    });
  });

  describe('replay', () => {
    async function seed() {
      const [sent, dead, pending, processing, otherTopic] = await rows.insertRaw([
        { topic: 'orders', state: 'sent' },
        { topic: 'orders', state: 'dead' },
        { topic: 'orders', state: 'pending' },
        { topic: 'orders', state: 'processing' },
        { topic: 'billing', state: 'dead' },
      ]);
      return {
        sent: sent!,
        dead: dead!,
        pending: pending!,
        processing: processing!,
        otherTopic: otherTopic!,
      };
    }

    it('moves only sent and dead rows; pending and processing never move', async () => {
      const r = await seed();
      expect(await store.replay({ topics: ['orders'] })).toBe(2);
      expect((await rows.get(r.sent)).state).toBe('pending');
      expect((await rows.get(r.dead)).state).toBe('pending');
      expect((await rows.get(r.processing)).state).toBe('processing');
      expect((await rows.get(r.otherTopic)).state).toBe('dead');
      expect(await store.replay({ ids: [r.pending, r.processing] })).toBe(0);
    });

    it('resets attempt, last_error and the claim columns, keeps id and sequence', async () => {
      await store.insert([message('t')]);
      for (let i = 0; i < 2; i++) {
        const [m] = await store.claim(1, LEASE);
        await store.complete([{ kind: 'retry', fence: m!, delayMs: 0, error: 'e' }]);
      }
      const [m] = await store.claim(1, LEASE);
      await store.complete([{ kind: 'dead', fence: m!, error: 'gave up' }]);
      const before = await rows.get(m!.id);
      const at = new Date(Date.now() + 3_000);
      clock.pin(at);
      expect(await store.replay({ ids: [m!.id] })).toBe(1);
      const after = await rows.get(m!.id);
      expect(after).toMatchObject({
        state: 'pending',
        attempt: 0,
        lastError: null,
        claimedAt: null,
        claimToken: null,
        leaseExpiresAt: null,
        sequence: before.sequence,
      });
      expect(after.scheduledAt.getTime()).toBe(at.getTime());
      expect(after.updatedAt.getTime()).toBe(at.getTime());
    });

    it('ANDs the filters, and an explicitly empty list matches nothing', async () => {
      const r = await seed();
      expect(await store.replay({ ids: [], topics: ['orders'] })).toBe(0);
      expect(await store.replay({ topics: [] })).toBe(0);
      expect(await store.replay({ ids: [r.sent, r.otherTopic], topics: ['billing'] })).toBe(1);
      expect((await rows.get(r.sent)).state).toBe('sent');
      const created = (await rows.get(r.dead)).createdAt;
      expect(await store.replay({ createdAfter: new Date(created.getTime() + 60_000) })).toBe(0);
      expect(await store.replay({ createdBefore: new Date(created.getTime() - 60_000) })).toBe(0);
      expect(
        await store.replay({
          topics: ['orders'],
          createdAfter: new Date(created.getTime() - 60_000),
          createdBefore: new Date(created.getTime() + 60_000),
        }),
      ).toBe(2);
    });

    it('refuses a replay without any filter', async () => {
      await seed();
      await expect(store.replay({})).rejects.toThrow(/at least one filter/);
      await expect(store.replay({ ids: null, topics: null })).rejects.toThrow(
        /at least one filter/,
      );
    });

    it('a replayed keyed row is the head of its key again', async () => {
      await store.insert([message('k-1', 'k'), message('k-2', 'k'), message('k-3', 'k')]);
      const [k1] = await store.claim(10, LEASE);
      await store.complete([{ kind: 'dead', fence: k1!, error: 'poison' }]);
      const [k2] = await store.claim(10, LEASE);
      expect(k2!.topic).toBe('k-2');
      await store.complete([{ kind: 'sent', fence: k2! }]);
      expect(await store.replay({ ids: [k1!.id] })).toBe(1);
      expect((await store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['k-1']);
    });

    it('lists the distinct topics', async () => {
      await rows.insertRaw([
        { topic: 'b' },
        { topic: 'a' },
        { topic: 'b', state: 'sent' },
        { topic: 'c', state: 'dead' },
      ]);
      expect(await store.distinctTopics()).toEqual(['a', 'b', 'c']);
      await rows.clear();
      expect(await store.distinctTopics()).toEqual([]);
    });
  });

  describe('concurrent claimers', () => {
    /**
     * Four claimers, each on its own connection, drain 10 keys x 20 rows (plus NULL-key rows).
     * In-flight bookkeeping is dropped BEFORE the completing write, so a legitimate next claim
     * can never look like an overlap; a real overlap (two rows of one key processing at once)
     * is caught on claim. Random retries with delay 0 put heads straight back as due pending
     * rows, the case where a stale snapshot could pass a key on.
     */
    async function drain(
      retryRate: number,
    ): Promise<{ order: Map<string, bigint[]>; overlaps: string[] }> {
      const keys = Array.from({ length: 10 }, (_, k) => `key-${k}`);
      const batch = [];
      for (let i = 0; i < 20; i++) for (const key of keys) batch.push(message(`${key}.${i}`, key));
      for (let i = 0; i < 20; i++) batch.push(message(`free.${i}`));
      await store.insert(batch);

      const inFlight = new Map<string, string>();
      const order = new Map<string, bigint[]>();
      const overlaps: string[] = [];
      const { url, tables } = context();
      const clients = Array.from({ length: 4 }, () =>
        postgres(url, { max: 2, onnotice: () => undefined }),
      );
      try {
        await Promise.all(
          clients.map(async (client) => {
            const own = createPostgresOutboxStore(client, tables, clock);
            let idle = 0;
            while (idle < 5) {
              const claimed = await own.claim(1 + Math.floor(Math.random() * 4), LEASE);
              if (claimed.length === 0) {
                idle++;
                await sleep(5);
                continue;
              }
              idle = 0;
              for (const m of claimed) {
                if (!m.key) continue;
                const holder = inFlight.get(m.key);
                if (holder) overlaps.push(`${m.key}: ${holder} and ${m.id}`);
                inFlight.set(m.key, m.id);
              }
              await sleep(Math.random() * 3);
              const completions = claimed.map((m) => {
                if (m.key && inFlight.get(m.key) === m.id) inFlight.delete(m.key);
                if (Math.random() < retryRate)
                  return { kind: 'retry' as const, fence: m, delayMs: 0, error: 'flaky' };
                if (m.key) order.set(m.key, [...(order.get(m.key) ?? []), m.sequence!]);
                return { kind: 'sent' as const, fence: m };
              });
              const held = await own.complete(completions);
              expect(held.size).toBe(completions.length);
            }
          }),
        );
      } finally {
        await Promise.all(clients.map((client) => client.end({ timeout: 5 })));
      }
      return { order, overlaps };
    }

    it.each([
      ['completing every row as sent', 0],
      ['with random immediate retries', 0.3],
    ])(
      'never has two rows of one key in flight and delivers each key in sequence order (%s)',
      async (_label, retryRate) => {
        const { order, overlaps } = await drain(retryRate);
        expect(overlaps).toEqual([]);
        expect(await rows.processingKeys()).toEqual([]);
        expect(order.size).toBe(10);
        for (const [key, sequences] of order) {
          expect(sequences, key).toHaveLength(20);
          const sorted = [...sequences].sort((a, b) => (a < b ? -1 : 1));
          expect(sequences, key).toEqual(sorted);
        }
        expect((await rows.all()).every((r) => r.state === 'sent')).toBe(true);
      },
    );
  });
}
