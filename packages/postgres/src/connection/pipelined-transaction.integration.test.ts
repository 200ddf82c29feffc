import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clientThroughProxy } from '../../test/support.js';
import { pipelinedTransaction } from './pipelined-transaction.js';
import { classifyPostgresError } from '../classify-error.js';

const pg = await requireService('postgres', 'postgres: pipelined transaction');

describe.skipIf(!pg.available)('pipelinedTransaction', () => {
  let db: FreshDatabase;

  beforeAll(async () => {
    if (!pg.available) return;
    db = await createFreshDatabase(pg.url);
    await db.sql.unsafe(`CREATE TABLE t (id int PRIMARY KEY, v text NOT NULL);
      CREATE TABLE d (id int PRIMARY KEY, ref int REFERENCES t (id) DEFERRABLE INITIALLY DEFERRED)`);
  });

  afterAll(async () => {
    await db?.drop();
  });

  beforeEach(async () => {
    await db.sql.unsafe('TRUNCATE d, t');
  });

  it('runs the statements in order in one transaction and returns their rows', async () => {
    const [, inserted, read] = await pipelinedTransaction(db.sql, [
      { text: "SELECT set_config('enable_seqscan', 'off', true)" },
      { text: 'INSERT INTO t VALUES ($1, $2), ($3, $4) RETURNING id', params: [1, 'a', 2, 'b'] },
      { text: "SELECT current_setting('enable_seqscan') AS s, count(*)::int AS n FROM t" },
    ]);
    expect(inserted).toEqual([{ id: 1 }, { id: 2 }]);
    expect(read![0]).toEqual({ s: 'off', n: 2 });
    // SET LOCAL scope: the setting ended with the transaction.
    const [after] = await db.sql`SELECT current_setting('enable_seqscan') AS s`;
    expect(after!['s']).toBe('on');
  });

  it('keeps nothing of the transaction when a later statement fails, and throws its error', async () => {
    await expect(
      pipelinedTransaction(db.sql, [
        { text: 'INSERT INTO t VALUES ($1, $2)', params: [1, 'kept?'] },
        { text: 'INSERT INTO t VALUES ($1, $2)', params: [1, 'duplicate'] },
        { text: 'INSERT INTO t VALUES ($1, $2)', params: [3, 'after the error'] },
      ]),
    ).rejects.toThrow(/duplicate key value violates unique constraint "t_pkey"/);
    expect(await db.sql`SELECT id FROM t`).toHaveLength(0);
  });

  it('throws when the COMMIT itself fails (a deferred constraint), though every statement passed', async () => {
    await expect(
      pipelinedTransaction(db.sql, [{ text: 'INSERT INTO d VALUES ($1, $2)', params: [1, 99] }]),
    ).rejects.toThrow(/violates foreign key constraint/);
    expect(await db.sql`SELECT id FROM d`).toHaveLength(0);
  });

  it('gives the connection back: more transactions than the pool has connections all run', async () => {
    const runs = Array.from({ length: 40 }, (_, i) =>
      pipelinedTransaction(db.sql, [
        { text: 'INSERT INTO t VALUES ($1, $2) RETURNING id', params: [i, `v${i}`] },
      ]),
    );
    await Promise.all(runs);
    const [count] = await db.sql`SELECT count(*)::int AS n FROM t`;
    expect(count!['n']).toBe(40);
  });

  it('fails a transaction whose reserve postgres.js strands when the connection drops, then recovers', async () => {
    // postgres.js 3.4.9 hands a reserve queued behind a connection that closes to that
    // connection's reconnect, which then drops it: the reserve never settles (porsager/postgres
    // #1195). A claim stuck there stopped the poller for good after one database outage. The
    // reserve's bound fails it after the connect timeout; postgres.js 4 gives it a new
    // connection instead. Either way it settles, and the next transaction runs.
    const { sql, proxy } = await clientThroughProxy(db);
    try {
      const holder = await sql.reserve();
      await holder`SELECT 1`;
      const stranded = pipelinedTransaction(sql, [{ text: 'SELECT 1 AS one' }]);
      const settled = stranded.then(
        () => 'resolved',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      proxy.cut();
      const outcome = await Promise.race([
        settled,
        new Promise((resolve) => setTimeout(() => resolve('still pending after 5 s'), 5_000)),
      ]);
      expect(['resolved', 'No database connection became free within 1000 ms.']).toContain(outcome);
      const [rows] = await pipelinedTransaction(sql, [{ text: 'SELECT 2 AS two' }]);
      expect(rows).toEqual([{ two: 2 }]);
    } finally {
      await sql.end({ timeout: 1 });
      await proxy.close();
    }
  });

  it('fails at once when the connection drops mid-transaction, though postgres.js leaves queued statements pending', async () => {
    // A statement with parameters is described before it runs; postgres.js queues the ones
    // after it in the reserved connection's own queue and never fails them when the
    // connection drops. Waiting for every statement to settle hung the claim for good.
    const { sql, proxy } = await clientThroughProxy(db);
    try {
      const inFlight = pipelinedTransaction(sql, [
        { text: 'SELECT pg_sleep($1::float8)', params: [3] },
        { text: 'INSERT INTO t VALUES ($1, $2)', params: [7, 'never'] },
      ]);
      const settled = inFlight.then(
        () => 'resolved',
        // postgres.js 4 fails it with CONNECTION_CLOSED caused by the reset, 3 with the reset.
        (error: unknown) => classifyPostgresError(error).driverCode ?? String(error),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      proxy.cut();
      const outcome = await Promise.race([
        settled,
        new Promise((resolve) => setTimeout(() => resolve('still pending after 2 s'), 2_000)),
      ]);
      expect(outcome).toBe('ECONNRESET');
      const [rows] = await pipelinedTransaction(sql, [{ text: 'SELECT 3 AS three' }]);
      expect(rows).toEqual([{ three: 3 }]);
      expect(await db.sql`SELECT id FROM t`).toHaveLength(0);
    } finally {
      await sql.end({ timeout: 1 });
      await proxy.close();
    }
  });
});
