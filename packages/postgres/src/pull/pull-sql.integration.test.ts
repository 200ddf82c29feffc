import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { InboxStore, NewInboxMessage } from '@queuebox/core';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import type postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresInboxStore } from '../inbox/inbox-store.js';
import { createTestTables, inboxMessage, mutableClock, testPool } from '../../test/inbox-tables.js';

const pg = await requireService('postgres', 'postgres: pull SQL contract');

/**
 * The shipped pull statements (examples/pull/sql/postgresql, spec §9), run as a worker runs
 * them: positional parameters, against the reference schema.
 */
const dir = new URL('../../../../examples/pull/sql/postgresql/', import.meta.url);
const statement = (name: string) => readFileSync(new URL(`${name}.sql`, dir), 'utf8');
const CLAIM = statement('claim');
const RENEW = statement('renew');
const COMPLETE = statement('complete');
const RETRY = statement('retry');
const DEAD = statement('dead');

const candLimit = (batch: number) => Math.min(Math.max(3 * batch, 50), 500);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Claimed {
  readonly id: string;
  readonly source: string;
  readonly aggregate_id: string | null;
  readonly claim_token: string;
  readonly [column: string]: unknown;
}

describe.skipIf(!pg.available)('pull SQL contract on PostgreSQL', () => {
  let db: FreshDatabase;
  let store: InboxStore;

  beforeAll(async () => {
    if (!pg.available) return;
    db = await createFreshDatabase(pg.url);
    const tables = await createTestTables(db.sql, 'default');
    store = createPostgresInboxStore(db.sql, tables.names, mutableClock());
  });

  afterAll(async () => {
    await db?.drop();
  });

  beforeEach(async () => {
    await db.sql`DELETE FROM inbox`;
  });

  const pull = (overrides: Partial<NewInboxMessage> = {}) =>
    inboxMessage({ consumption: 'pull', ...overrides });
  const storeAll = async (messages: NewInboxMessage[], initialDelayMs = 0) => {
    for (const m of messages) await store.store(m, { initialDelayMs });
    return messages;
  };
  const claim = (source: string, batch: number, leaseMs = 30_000, sql: postgres.Sql = db.sql) =>
    sql.unsafe<Claimed[]>(CLAIM, [source, batch, leaseMs, candLimit(batch)]);
  const row = async (id: string) => (await db.sql`SELECT * FROM inbox WHERE id = ${id}`)[0]!;
  const count = async (text: string, parameters: (string | number)[]) =>
    (await db.sql.unsafe(text, parameters)).count;

  it('claims due pull messages of one source with every column and a DB-clock lease', async () => {
    const stored = await storeAll([pull(), pull({ aggregateId: 'a' }), pull()]);
    await storeAll([pull({ source: 'payments' }), inboxMessage()]);
    await storeAll([pull()], 60_000);
    const [before] = await db.sql`SELECT clock_timestamp() AS now`;
    const claimed = await claim('orders', 10, 45_000);
    expect(claimed.map((r) => r.id)).toEqual(stored.map((m) => m.id));
    for (const r of claimed) {
      expect(r).toMatchObject({
        state: 'processing',
        source: 'orders',
        consumption: 'pull',
        attempt: 0,
        payload: { n: 1 },
      });
      expect(r.claim_token).toMatch(/^[0-9a-f-]{36}$/);
      expect(Object.keys(r)).toEqual(
        expect.arrayContaining(['idempotency_key', 'headers', 'correlation_id', 'event_type']),
      );
      const lease = (r.lease_expires_at as Date).getTime() - (before!.now as Date).getTime();
      expect(lease).toBeGreaterThanOrEqual(45_000);
      expect(lease).toBeLessThan(50_000);
    }
    expect(await claim('orders', 10)).toEqual([]);
  });

  it('claims at most `batch` messages, in schedule order', async () => {
    const stored = await storeAll(Array.from({ length: 5 }, () => pull()));
    expect((await claim('orders', 2)).map((r) => r.id)).toEqual(
      stored.slice(0, 2).map((m) => m.id),
    );
    expect((await claim('orders', 5)).map((r) => r.id)).toEqual(stored.slice(2).map((m) => m.id));
  });

  it('reserves an aggregate per source: the same aggregate on another source still runs', async () => {
    const [a1, a2] = await storeAll([pull({ aggregateId: 'A' }), pull({ aggregateId: 'A' })]);
    const [other] = await storeAll([pull({ aggregateId: 'A', source: 'payments' })]);
    expect((await claim('orders', 10)).map((r) => r.id)).toEqual([a1!.id]);
    expect(await claim('orders', 10)).toEqual([]);
    expect((await claim('payments', 10)).map((r) => r.id)).toEqual([other!.id]);
    const [held] = await db.sql`SELECT claim_token FROM inbox WHERE id = ${a1!.id}`;
    expect(await count(COMPLETE, [a1!.id, held!.claim_token as string])).toBe(1);
    expect((await claim('orders', 10)).map((r) => r.id)).toEqual([a2!.id]);
  });

  it('takes over an expired lease with a new token; the old token is fenced out', async () => {
    const [m] = await storeAll([pull({ aggregateId: 'A' })]);
    const [later] = await storeAll([pull({ aggregateId: 'A' })]);
    const [first] = await claim('orders', 10, 50);
    await sleep(80);
    // The expired message is the head of its aggregate again; the later one still waits.
    const [second, ...rest] = await claim('orders', 10);
    expect(rest).toEqual([]);
    expect(second!.id).toBe(m!.id);
    expect(second!.claim_token).not.toBe(first!.claim_token);
    expect(await count(COMPLETE, [m!.id, first!.claim_token])).toBe(0);
    expect(await count(RENEW, [30_000, m!.id, first!.claim_token])).toBe(0);
    expect(await count(COMPLETE, [m!.id, second!.claim_token])).toBe(1);
    expect((await claim('orders', 10)).map((r) => r.id)).toEqual([later!.id]);
  });

  it('renews only under the fence: stale token, expired lease and push rows change nothing', async () => {
    const [a, b] = await storeAll([pull(), pull()]);
    const [ca, cb] = await claim('orders', 10, 1_000);
    const before = (await row(a!.id)).lease_expires_at as Date;
    expect(await count(RENEW, [60_000, a!.id, ca!.claim_token])).toBe(1);
    expect(((await row(a!.id)).lease_expires_at as Date).getTime()).toBeGreaterThan(
      before.getTime() + 50_000,
    );
    expect(await count(RENEW, [60_000, a!.id, randomUUID()])).toBe(0);
    await db.sql`UPDATE inbox SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE id = ${b!.id}`;
    expect(await count(RENEW, [60_000, b!.id, cb!.claim_token])).toBe(0);
    // The fence names consumption: a relay (push) claim with a known token is not a pull claim.
    const [push] = await storeAll([inboxMessage()]);
    const [relayClaim] = await store.claimForRelay(1, 60_000);
    expect(relayClaim!.id).toBe(push!.id);
    expect(await count(RENEW, [60_000, push!.id, relayClaim!.claimToken])).toBe(0);
    expect(await count(COMPLETE, [push!.id, relayClaim!.claimToken])).toBe(0);
  });

  it('completes under the fence and clears the token and lease', async () => {
    const [m] = await storeAll([pull()]);
    const [c] = await claim('orders', 1);
    expect(await count(COMPLETE, [m!.id, randomUUID()])).toBe(0);
    expect(await count(COMPLETE, [m!.id, c!.claim_token])).toBe(1);
    const done = await row(m!.id);
    expect(done).toMatchObject({ state: 'processed', claim_token: null, lease_expires_at: null });
    expect(done.processed_at).toBeInstanceOf(Date);
    expect(await count(COMPLETE, [m!.id, c!.claim_token])).toBe(0);
  });

  it('retries under the fence: attempt + 1, later schedule, last_error, and a later message overtakes', async () => {
    const [m, next] = await storeAll([pull({ aggregateId: 'A' }), pull({ aggregateId: 'A' })]);
    const [c] = await claim('orders', 1);
    expect(await count(RETRY, [60_000, 'boom', m!.id, randomUUID()])).toBe(0);
    const [before] = await db.sql`SELECT clock_timestamp() AS now`;
    expect(await count(RETRY, [60_000, 'boom', m!.id, c!.claim_token])).toBe(1);
    const retried = await row(m!.id);
    expect(retried).toMatchObject({
      state: 'pending',
      attempt: 1,
      last_error: 'boom',
      claim_token: null,
      lease_expires_at: null,
    });
    expect((retried.scheduled_at as Date).getTime()).toBeGreaterThanOrEqual(
      (before!.now as Date).getTime() + 60_000,
    );
    // Not due for a minute: the next message of its aggregate is claimed first (docs/pull.md).
    expect((await claim('orders', 10)).map((r) => r.id)).toEqual([next!.id]);
  });

  it('dead-letters under the fence with last_error', async () => {
    const [m] = await storeAll([pull()]);
    const [c] = await claim('orders', 1);
    expect(await count(DEAD, ['gave up', m!.id, randomUUID()])).toBe(0);
    expect(await count(DEAD, ['gave up', m!.id, c!.claim_token])).toBe(1);
    expect(await row(m!.id)).toMatchObject({
      state: 'dead',
      last_error: 'gave up',
      claim_token: null,
      lease_expires_at: null,
    });
    expect(await claim('orders', 10)).toEqual([]);
  });

  it('never gives one message to two concurrent claimers', async () => {
    const stored = await storeAll(Array.from({ length: 120 }, () => pull()));
    const pool = testPool(db.url, 6);
    try {
      const worker = async () => {
        const mine: string[] = [];
        for (;;) {
          const got = await claim('orders', 7, 30_000, pool);
          if (got.length === 0) return mine;
          mine.push(...got.map((r) => r.id));
        }
      };
      const results = await Promise.all(Array.from({ length: 5 }, worker));
      const all = results.flat();
      expect(all).toHaveLength(stored.length);
      expect(new Set(all)).toEqual(new Set(stored.map((m) => m.id)));
    } finally {
      await pool.end();
    }
  });

  it('keeps one message per (source, aggregate) in flight across concurrent workers, in order', async () => {
    const stored: NewInboxMessage[] = [];
    for (let round = 0; round < 8; round++) {
      for (let a = 0; a < 5; a++)
        stored.push(...(await storeAll([pull({ aggregateId: `agg-${a}` })])));
    }
    const pool = testPool(db.url, 6);
    const completed: string[] = [];
    const violations: string[] = [];
    let working = true;
    const monitor = (async () => {
      while (working) {
        const rows = await db.sql`
          SELECT source, aggregate_id FROM inbox
          WHERE consumption = 'pull' AND state = 'processing' AND lease_expires_at > clock_timestamp()
          GROUP BY source, aggregate_id HAVING count(*) > 1`;
        violations.push(...rows.map((r) => `${r.source}/${r.aggregate_id}`));
        await sleep(1);
      }
    })();
    try {
      const worker = async () => {
        for (;;) {
          const got = await claim('orders', 3, 30_000, pool);
          if (got.length === 0) {
            const [left] =
              await pool`SELECT count(*)::int AS n FROM inbox WHERE state <> 'processed'`;
            if (left!.n === 0) return;
            await sleep(2);
            continue;
          }
          for (const r of got) {
            await sleep(Math.random() * 3);
            await pool.begin(async (tx) => {
              const done = await tx.unsafe(COMPLETE, [r.id, r.claim_token]);
              expect(done.count).toBe(1);
              completed.push(r.id);
            });
          }
        }
      };
      await Promise.all(Array.from({ length: 4 }, worker));
    } finally {
      working = false;
      await monitor;
      await pool.end();
    }
    expect(violations).toEqual([]);
    for (let a = 0; a < 5; a++) {
      const ofAggregate = stored.filter((m) => m.aggregateId === `agg-${a}`).map((m) => m.id);
      expect(completed.filter((id) => ofAggregate.includes(id))).toEqual(ofAggregate);
    }
  });
});
