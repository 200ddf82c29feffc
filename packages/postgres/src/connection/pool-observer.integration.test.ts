import { systemClock, type Database, type PoolObserver } from '@queuebox/core';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appConfigWith, configFor, recordingLogger } from '../../test/support.js';
import { provider } from '../index.js';
import { createPool } from './pool.js';
import { observePool, reserveWithin } from './reserved-connection.js';

const pg = await requireService('postgres', 'postgres: pool observer');

interface Borrow {
  readonly startedAt: number;
  outcome?: 'acquired' | 'timeout';
  endedAt?: number;
}

/** Records every borrow the pool reports, and how many wait at a time. */
function recordingObserver() {
  const borrows: Borrow[] = [];
  let waiting = 0;
  let mostWaiting = 0;
  const observer: PoolObserver = {
    borrow() {
      const borrow: Borrow = { startedAt: performance.now() };
      borrows.push(borrow);
      mostWaiting = Math.max(mostWaiting, ++waiting);
      return (outcome) => {
        waiting--;
        borrow.outcome = outcome;
        borrow.endedAt = performance.now();
      };
    },
  };
  return { observer, borrows, mostWaiting: () => mostWaiting };
}

describe.skipIf(!pg.available)("the pool metrics' borrow observer", () => {
  let db: FreshDatabase;
  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('sees a borrow wait while the only connection is reserved, then acquire', async () => {
    const sql = createPool(configFor(db, { poolSize: 1 }));
    const recorded = recordingObserver();
    observePool(sql, recorded.observer);
    try {
      const first = await reserveWithin(sql, 5000);
      const second = reserveWithin(sql, 5000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(recorded.mostWaiting()).toBe(1);
      expect(recorded.borrows[1]?.outcome).toBeUndefined();
      first.release();
      (await second).release();
      expect(recorded.borrows.map((b) => b.outcome)).toEqual(['acquired', 'acquired']);
      const waited = (recorded.borrows[1]?.endedAt ?? 0) - (recorded.borrows[1]?.startedAt ?? 0);
      expect(waited).toBeGreaterThanOrEqual(190);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('reports a borrow that finds no free connection in time as a timeout', async () => {
    const sql = createPool(configFor(db, { poolSize: 1 }));
    const recorded = recordingObserver();
    observePool(sql, recorded.observer);
    try {
      const held = await reserveWithin(sql, 5000);
      await expect(reserveWithin(sql, 300)).rejects.toThrow(
        'No database connection became free within 300 ms.',
      );
      expect(recorded.borrows.map((b) => b.outcome)).toEqual(['acquired', 'timeout']);
      held.release();
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('is what provider.open wires: the stores borrow through it', async () => {
    const recorded = recordingObserver();
    const database: Database = await provider.open(appConfigWith(configFor(db)), {
      logger: recordingLogger(),
      clock: systemClock,
      pool: recorded.observer,
    });
    try {
      await database.migrate();
      expect(await database.outboxStore().claim(10, 60_000)).toEqual([]);
    } finally {
      await database.close();
    }
    expect(recorded.borrows.length).toBeGreaterThan(0);
    expect(recorded.borrows.every((b) => b.outcome === 'acquired')).toBe(true);
  });
});
