import { afterAll, describe, expect, it } from 'vitest';
import { createFreshDatabase, type FreshDatabase } from './postgres-database.js';
import { requireService } from './services.js';

const pg = await requireService('postgres', 'testing: fresh databases');

describe.skipIf(!pg.available)('fresh PostgreSQL databases', () => {
  const made: FreshDatabase[] = [];
  afterAll(async () => {
    for (const db of made) await db.drop();
  });

  it('gives each caller its own empty database, and drop removes it', async () => {
    if (!pg.available) return;
    const a = await createFreshDatabase(pg.url);
    const b = await createFreshDatabase(pg.url);
    made.push(b);
    expect(a.name).not.toBe(b.name);
    await a.sql`CREATE TABLE t (x int)`;
    const [row] = await b.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 't'`;
    expect(row?.n).toBe(0);
    await a.drop();
    const [gone] = await b.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM pg_database WHERE datname = ${a.name}`;
    expect(gone?.n).toBe(0);
  });
});
