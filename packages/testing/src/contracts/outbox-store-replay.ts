/** Outbox store contract: gauges, the capture wake-up delay and replay (spec §14, §4.1, §11.6). */
import { describe, expect, it } from 'vitest';
import { outboxInsert as message } from './messages.js';
import { LEASE, outboxRow, type OutboxCase } from './outbox-store-case.js';

export function outboxReplayCases(t: OutboxCase): void {
  const row = (id: string) => outboxRow(t, id);

  describe('gauges and wake-up', () => {
    it('counts pending rows and measures the oldest one on the DB clock', async () => {
      expect(await t.store.gauges()).toEqual({ pending: 0, oldestPendingAgeSeconds: 0 });
      await t.store.insert([message('a'), message('b'), message('c')]);
      const a = (await t.probe.outboxRows()).find((r) => r.topic === 'a')!;
      await t.probe.ageOutboxRow(a.id, 90);
      const [claimed] = await t.store.claim(1, LEASE);
      expect(claimed!.topic).toBe('a');
      const gauges = await t.store.gauges();
      expect(gauges.pending).toBe(2);
      expect(gauges.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(0);
      expect(gauges.oldestPendingAgeSeconds).toBeLessThan(30);
      await t.store.complete([{ kind: 'retry', fence: claimed!, delayMs: 0, error: 'e' }]);
      const withOld = await t.store.gauges();
      expect(withOld.pending).toBe(3);
      expect(withOld.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(89);
      expect(withOld.oldestPendingAgeSeconds).toBeLessThan(120);
    });

    it('next wake: nearest schedule or lease, clamped to [1, max]', async () => {
      expect(await t.store.nextWakeDelayMs!(5_000)).toBe(5_000);
      await t.probe.insertOutbox([{ topic: 'later', scheduledAt: new Date(Date.now() + 2_000) }]);
      const delay = await t.store.nextWakeDelayMs!(5_000);
      expect(delay).toBeGreaterThan(1_000);
      expect(delay).toBeLessThanOrEqual(2_000);
      await t.probe.insertOutbox([{ topic: 'now' }]);
      expect(await t.store.nextWakeDelayMs!(5_000)).toBe(1);
      await t.store.claim(1, 300);
      await t.probe.clear();
      await t.store.insert([message('x')]);
      await t.store.claim(1, 300);
      const leaseDelay = await t.store.nextWakeDelayMs!(5_000);
      expect(leaseDelay).toBeGreaterThanOrEqual(1);
      expect(leaseDelay).toBeLessThanOrEqual(300);
    });
  });

  describe('replay', () => {
    async function seed() {
      const [sent, dead, pending, processing, otherTopic] = await t.probe.insertOutbox([
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
      expect(await t.store.replay({ topics: ['orders'] })).toBe(2);
      expect((await row(r.sent)).state).toBe('pending');
      expect((await row(r.dead)).state).toBe('pending');
      expect((await row(r.processing)).state).toBe('processing');
      expect((await row(r.otherTopic)).state).toBe('dead');
      expect(await t.store.replay({ ids: [r.pending, r.processing] })).toBe(0);
    });

    it('resets attempt, last_error and the claim columns, keeps id and sequence', async () => {
      await t.store.insert([message('t')]);
      for (let i = 0; i < 2; i++) {
        const [m] = await t.store.claim(1, LEASE);
        await t.store.complete([{ kind: 'retry', fence: m!, delayMs: 0, error: 'e' }]);
      }
      const [m] = await t.store.claim(1, LEASE);
      await t.store.complete([{ kind: 'dead', fence: m!, error: 'gave up' }]);
      const before = await row(m!.id);
      const at = new Date(Date.now() + 3_000);
      t.clock.pin(at);
      expect(await t.store.replay({ ids: [m!.id] })).toBe(1);
      const after = await row(m!.id);
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
      expect(await t.store.replay({ ids: [], topics: ['orders'] })).toBe(0);
      expect(await t.store.replay({ topics: [] })).toBe(0);
      expect(await t.store.replay({ ids: [r.sent, r.otherTopic], topics: ['billing'] })).toBe(1);
      expect((await row(r.sent)).state).toBe('sent');
      const created = (await row(r.dead)).createdAt;
      expect(await t.store.replay({ createdAfter: new Date(created.getTime() + 60_000) })).toBe(0);
      expect(await t.store.replay({ createdBefore: new Date(created.getTime() - 60_000) })).toBe(0);
      expect(
        await t.store.replay({
          topics: ['orders'],
          createdAfter: new Date(created.getTime() - 60_000),
          createdBefore: new Date(created.getTime() + 60_000),
        }),
      ).toBe(2);
    });

    it('refuses a replay without any filter', async () => {
      await seed();
      await expect(t.store.replay({})).rejects.toThrow(/at least one filter/);
      await expect(t.store.replay({ ids: null, topics: null })).rejects.toThrow(
        /at least one filter/,
      );
    });

    it('a replayed keyed row is the head of its key again', async () => {
      await t.store.insert([message('k-1', 'k'), message('k-2', 'k'), message('k-3', 'k')]);
      const [k1] = await t.store.claim(10, LEASE);
      await t.store.complete([{ kind: 'dead', fence: k1!, error: 'poison' }]);
      const [k2] = await t.store.claim(10, LEASE);
      expect(k2!.topic).toBe('k-2');
      await t.store.complete([{ kind: 'sent', fence: k2! }]);
      expect(await t.store.replay({ ids: [k1!.id] })).toBe(1);
      expect((await t.store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['k-1']);
    });

    it('lists the distinct topics', async () => {
      await t.probe.insertOutbox([
        { topic: 'b' },
        { topic: 'a' },
        { topic: 'b', state: 'sent' },
        { topic: 'c', state: 'dead' },
      ]);
      expect(await t.store.distinctTopics()).toEqual(['a', 'b', 'c']);
      await t.probe.clear();
      expect(await t.store.distinctTopics()).toEqual([]);
    });
  });
}
