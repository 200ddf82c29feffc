/** Outbox store contract: key order holds across replicas claiming at once (spec §4.2, §18). */
import { describe, expect, it } from 'vitest';
import { outboxInsert as message } from './messages.js';
import { LEASE, type OutboxCase } from './outbox-store-case.js';
import type { Replica } from './probe.js';
import { sleep } from './test-clock.js';
import type { NewOutboxMessage, OutboxStore } from '@queuebox/core';

export function outboxConcurrencyCases(t: OutboxCase): void {
  describe('concurrent claimers', () => {
    /**
     * Four claimers, each on connections of its own, drain 10 keys x 20 rows (plus NULL-key rows).
     * In-flight bookkeeping is dropped BEFORE the completing write, so a legitimate next claim
     * can never look like an overlap; a real overlap (two rows of one key processing at once)
     * is caught on claim. Random retries with delay 0 put heads straight back as due pending
     * rows, the case where a stale snapshot could pass a key on.
     */
    async function drain(
      retryRate: number,
    ): Promise<{ order: Map<string, bigint[]>; overlaps: string[] }> {
      const keys = Array.from({ length: 10 }, (_, k) => `key-${k}`);
      const batch: NewOutboxMessage[] = [];
      for (let i = 0; i < 20; i++) for (const key of keys) batch.push(message(`${key}.${i}`, key));
      for (let i = 0; i < 20; i++) batch.push(message(`free.${i}`));
      await t.store.insert(batch);

      const inFlight = new Map<string, string>();
      const order = new Map<string, bigint[]>();
      const overlaps: string[] = [];
      const replicas: Replica<OutboxStore>[] = [];
      try {
        for (let n = 0; n < 4; n++) replicas.push(await t.harness.replica(t.clock));
        await Promise.all(
          replicas.map(async ({ store }) => {
            let idle = 0;
            while (idle < 5) {
              const claimed = await store.claim(1 + Math.floor(Math.random() * 4), LEASE);
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
              const held = await store.complete(completions);
              expect(held.size).toBe(completions.length);
            }
          }),
        );
      } finally {
        await Promise.all(replicas.map((replica) => replica.close()));
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
        const rows = await t.probe.outboxRows();
        const processingKeys = rows.filter((r) => r.state === 'processing' && r.key);
        expect(processingKeys).toEqual([]);
        expect(order.size).toBe(10);
        for (const [key, sequences] of order) {
          expect(sequences, key).toHaveLength(20);
          const sorted = [...sequences].sort((a, b) => (a < b ? -1 : 1));
          expect(sequences, key).toEqual(sorted);
        }
        expect(rows.every((r) => r.state === 'sent')).toBe(true);
      },
    );
  });
}
