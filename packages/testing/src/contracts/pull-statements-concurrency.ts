/**
 * Pull statements contract: workers on connections of their own claim at once (spec §9.2
 * properties): no message goes to two of them, and one message per (source, aggregate) is in
 * flight, in order.
 */
import type { NewInboxMessage } from '@queuebox/core';
import { expect, it } from 'vitest';
import type { Replica } from './probe.js';
import {
  candLimit,
  pullMessage as pull,
  type PullCase,
  type PullStatements,
} from './pull-statements-case.js';
import { storeAll } from './relay-case.js';
import { sleep } from './test-clock.js';

export function pullConcurrencyCases(t: PullCase): void {
  /** The statements on a pool of their own (another worker process), closed after `run`. */
  async function withWorker<T>(run: (worker: PullStatements) => Promise<T>): Promise<T> {
    const worker: Replica<PullStatements> = await t.harness.pullWorker();
    try {
      return await run(worker.store);
    } finally {
      await worker.close();
    }
  }

  it('never gives one message to two concurrent claimers', async () => {
    const stored = await storeAll(
      t.store,
      Array.from({ length: 120 }, () => pull()),
    );
    const all = await withWorker(async (worker) => {
      const drain = async () => {
        const mine: string[] = [];
        for (;;) {
          const got = await worker.claim('orders', 7, 30_000, candLimit(7));
          if (got.length === 0) return mine;
          mine.push(...got.map((r) => r.id));
        }
      };
      return (await Promise.all(Array.from({ length: 5 }, drain))).flat();
    });
    expect(all).toHaveLength(stored.length);
    expect(new Set(all)).toEqual(new Set(stored.map((m) => m.id)));
  });

  it('keeps one message per (source, aggregate) in flight across concurrent workers, in order', async () => {
    const stored: NewInboxMessage[] = [];
    for (let round = 0; round < 8; round++) {
      for (let a = 0; a < 5; a++)
        stored.push(...(await storeAll(t.store, [pull({ aggregateId: `agg-${a}` })])));
    }
    const completed: string[] = [];
    const violations: string[] = [];
    let working = true;
    const monitor = (async () => {
      while (working) {
        const now = Date.now();
        const live = new Map<string, number>();
        for (const r of await t.probe.inboxRows()) {
          if (r.consumption !== 'pull' || r.state !== 'processing') continue;
          if (r.leaseExpiresAt === null || r.leaseExpiresAt.getTime() <= now) continue;
          const key = `${r.source}/${r.aggregateId}`;
          live.set(key, (live.get(key) ?? 0) + 1);
        }
        for (const [key, n] of live) if (n > 1) violations.push(key);
        await sleep(1);
      }
    })();
    try {
      await withWorker(async (worker) => {
        const run = async () => {
          for (;;) {
            const got = await worker.claim('orders', 3, 30_000, candLimit(3));
            if (got.length === 0) {
              const left = (await t.probe.inboxRows()).filter((r) => r.state !== 'processed');
              if (left.length === 0) return;
              await sleep(2);
              continue;
            }
            for (const r of got) {
              await sleep(Math.random() * 3);
              expect(await worker.complete(r.id, r.claim_token)).toBe(1);
              completed.push(r.id);
            }
          }
        };
        await Promise.all(Array.from({ length: 4 }, run));
      });
    } finally {
      working = false;
      await monitor;
    }
    expect(violations).toEqual([]);
    for (let a = 0; a < 5; a++) {
      const ofAggregate = stored.filter((m) => m.aggregateId === `agg-${a}`).map((m) => m.id);
      expect(completed.filter((id) => ofAggregate.includes(id))).toEqual(ofAggregate);
    }
  });
}
