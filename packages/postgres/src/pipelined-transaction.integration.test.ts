import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pipelinedTransaction } from './pipelined-transaction.js';

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
});
