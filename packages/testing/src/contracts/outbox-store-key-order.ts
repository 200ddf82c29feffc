/** Outbox store contract: one row of a key in flight at a time, in sequence order (spec §4.2). */
import { describe, expect, it } from 'vitest';
import { outboxInsert as message } from './messages.js';
import { LEASE, type OutboxCase } from './outbox-store-case.js';
import { idsOf as ids } from './test-clock.js';

export function outboxKeyOrderCases(t: OutboxCase): void {
  const topics = async (limit = 10) => (await t.store.claim(limit, LEASE)).map((m) => m.topic);

  describe('key order', () => {
    it('claims the rows of one key one at a time, in sequence order', async () => {
      await t.store.insert([message('k-1', 'k'), message('k-2', 'k'), message('k-3', 'k')]);
      const delivered: string[] = [];
      for (let i = 0; i < 3; i++) {
        const claimed = await t.store.claim(10, LEASE);
        expect(claimed).toHaveLength(1);
        delivered.push(claimed[0]!.topic);
        // Still in flight: the key stays held.
        expect(await t.store.claim(10, LEASE)).toEqual([]);
        await t.store.complete([{ kind: 'sent', fence: claimed[0]! }]);
      }
      expect(delivered).toEqual(['k-1', 'k-2', 'k-3']);
      expect(await t.store.claim(10, LEASE)).toEqual([]);
    });

    it('a row waiting for its retry holds back the later rows of its key', async () => {
      await t.store.insert([message('k-1', 'k'), message('k-2', 'k'), message('other', 'j')]);
      const first = await t.store.claim(10, LEASE);
      expect(first.map((m) => m.topic).sort()).toEqual(['k-1', 'other']);
      const k1 = first.find((m) => m.topic === 'k-1')!;
      await t.store.complete([{ kind: 'retry', fence: k1, delayMs: 60_000, error: 'boom' }]);
      expect(await t.store.claim(10, LEASE)).toEqual([]);
      t.clock.shift(61_000);
      expect(await topics()).toEqual(['k-1']);
    });

    it('a processing row holds its key even when its lease expired, until reclaimed', async () => {
      await t.store.insert([message('k-1', 'k'), message('k-2', 'k')]);
      const [k1] = await t.store.claim(10, LEASE);
      await t.probe.expireOutboxLease(k1!.id);
      expect(await t.store.claim(10, LEASE)).toEqual([]);
      await t.store.reclaimExpired();
      expect(await topics()).toEqual(['k-1']);
    });

    it('a head in flight with a backlog larger than the window delays no NULL-key row or other key', async () => {
      await t.store.insert([message('k-head', 'k')]);
      const [head] = await t.store.claim(1, LEASE);
      expect(head!.topic).toBe('k-head');
      // 300 rows of k behind it, due first; the window of a batch of 100 is 256 rows.
      await t.store.insert(Array.from({ length: 300 }, (_, n) => message(`k-${n}`, 'k')));
      await t.store.insert([message('loose'), message('other', 'j')]);
      expect(await topics(100)).toEqual(['loose', 'other']);
    });

    it('a row in flight holds its key even against a replayed row with a lower sequence', async () => {
      await t.store.insert([message('k-1', 'k'), message('k-2', 'k')]);
      const [k1] = await t.store.claim(10, LEASE);
      await t.store.complete([{ kind: 'dead', fence: k1!, error: 'poison' }]);
      const [k2] = await t.store.claim(10, LEASE);
      expect(k2!.topic).toBe('k-2');
      // k-1 comes back with its old sequence while k-2 is in flight: one row of a key at a time.
      expect(await t.store.replay({ ids: [k1!.id] })).toBe(1);
      expect(await t.store.claim(10, LEASE)).toEqual([]);
      await t.store.complete([{ kind: 'sent', fence: k2! }]);
      expect(await topics()).toEqual(['k-1']);
    });

    it('a dead row releases its key', async () => {
      await t.store.insert([message('k-1', 'k'), message('k-2', 'k')]);
      const [k1] = await t.store.claim(10, LEASE);
      await t.store.complete([{ kind: 'dead', fence: k1!, error: 'poison' }]);
      expect(await topics()).toEqual(['k-2']);
    });

    it('a sent row does not count', async () => {
      const [a, b] = await t.probe.insertOutbox([
        { topic: 'old', key: 'k', state: 'sent' },
        { topic: 'new', key: 'k' },
      ]);
      expect(ids(await t.store.claim(10, LEASE))).toEqual([b]);
      expect(a).toBeDefined();
    });

    it('claims NULL and empty keys in parallel, and different keys side by side', async () => {
      await t.store.insert([
        message('n-1'),
        message('n-2'),
        message('e-1', ''),
        message('e-2', ''),
        message('a-1', 'a'),
        message('a-2', 'a'),
        message('b-1', 'b'),
      ]);
      expect((await topics()).sort()).toEqual(['a-1', 'b-1', 'e-1', 'e-2', 'n-1', 'n-2']);
    });

    it('does not take the next row of a key whose head another transaction holds locked', async () => {
      await t.store.insert([message('k-1', 'k'), message('k-2', 'k'), message('free', 'f')]);
      const [head] = await t.probe.outboxRows();
      await t.probe.withOutboxRowLocked(head!.id, async () => {
        // The claim passes over the locked head; its successor is still not the head of its key.
        expect(await topics()).toEqual(['free']);
      });
      expect(await topics()).toEqual(['k-1']);
    });

    it('a head that another transaction is about to complete keeps its key held until that commits', async () => {
      await t.store.insert([message('k-1', 'k'), message('k-2', 'k')]);
      const [k1] = await t.store.claim(10, LEASE);
      await t.probe.withUncommittedOutboxState(k1!.id, 'sent', async () => {
        expect(await t.store.claim(10, LEASE)).toEqual([]);
      });
      expect(await topics()).toEqual(['k-2']);
    });
  });
}
