/**
 * Outbox store contract: the fence on every terminal and renewal write, what each terminal write
 * sets, and the reclaim, renew and release steps (spec §4.4, §4.1, §4.6).
 */
import type { ClaimedOutboxMessage } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { outboxInsert as message } from './messages.js';
import { LEASE, outboxRow, type OutboxCase } from './outbox-store-case.js';
import { sleep } from './test-clock.js';

const STRANGER_TOKEN = '00000000-0000-4000-8000-000000000000';

export function outboxFenceCases(t: OutboxCase): void {
  const row = (id: string) => outboxRow(t, id);

  describe('fence', () => {
    async function claimFour(): Promise<ClaimedOutboxMessage[]> {
      await t.store.insert([message('one'), message('two'), message('three'), message('four')]);
      return t.store.claim(10, LEASE);
    }

    it('a stale token changes nothing and is not returned', async () => {
      const [m] = await claimFour();
      const stale = { id: m!.id, claimToken: STRANGER_TOKEN };
      const held = await t.store.complete([{ kind: 'sent', fence: stale }]);
      expect(held.size).toBe(0);
      expect((await row(m!.id)).state).toBe('processing');
    });

    it('an expired lease changes nothing and is not returned', async () => {
      const [m] = await claimFour();
      await t.probe.expireOutboxLease(m!.id);
      const before = await row(m!.id);
      expect(
        (await t.store.complete([{ kind: 'retry', fence: m!, delayMs: 0, error: 'x' }])).size,
      ).toBe(0);
      expect(await row(m!.id)).toEqual(before);
    });

    it('a row no longer processing changes nothing', async () => {
      const [m] = await claimFour();
      await t.store.complete([{ kind: 'sent', fence: m! }]);
      const before = await row(m!.id);
      expect((await t.store.complete([{ kind: 'dead', fence: m!, error: 'late' }])).size).toBe(0);
      expect(await row(m!.id)).toEqual(before);
      expect(before.state).toBe('sent');
    });

    it('a mixed batch writes exactly the rows whose fence holds', async () => {
      const [a, b, c, d] = await claimFour();
      await t.probe.expireOutboxLease(c!.id);
      await t.probe.setOutboxState(d!.id, 'pending');
      const held = await t.store.complete([
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
      expect((await row(a!.id)).state).toBe('sent');
      expect((await row(b!.id)).state).toBe('pending');
      expect((await row(c!.id)).state).toBe('processing');
      expect((await row(d!.id)).state).toBe('pending');
    });

    it('a completion and a renewal over the same rows at once do not deadlock', async () => {
      const a = await t.harness.replica(t.clock);
      const b = await t.harness.replica(t.clock);
      try {
        for (let round = 0; round < 10; round++) {
          await t.store.insert(Array.from({ length: 60 }, (_, i) => message(`r${round}.${i}`)));
          const claimed = await t.store.claim(60, LEASE);
          const [held] = await Promise.all([
            a.store.complete(claimed.map((m) => ({ kind: 'sent' as const, fence: m }))),
            b.store.renew([...claimed].reverse(), LEASE),
          ]);
          expect(held.size).toBe(60);
        }
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('refuses one id twice in a batch', async () => {
      const [a] = await claimFour();
      await expect(
        t.store.complete([
          { kind: 'sent', fence: a! },
          { kind: 'dead', fence: a!, error: 'x' },
        ]),
      ).rejects.toThrow(/twice/);
      expect((await row(a!.id)).state).toBe('processing');
    });

    it('an empty batch writes nothing', async () => {
      expect((await t.store.complete([])).size).toBe(0);
    });
  });

  describe('terminal writes', () => {
    it('sent: state and updated_at on the app clock; claim columns stay', async () => {
      await t.store.insert([message('t')]);
      const [m] = await t.store.claim(1, LEASE);
      const claimedRow = await row(m!.id);
      const at = new Date(Date.now() + 5_000);
      t.clock.pin(at);
      await t.store.complete([{ kind: 'sent', fence: m! }]);
      const sent = await row(m!.id);
      expect(sent).toMatchObject({
        state: 'sent',
        attempt: 0,
        claimToken: m!.claimToken,
        lastError: null,
      });
      expect(sent.updatedAt.getTime()).toBe(at.getTime());
      expect(sent.claimedAt).toEqual(claimedRow.claimedAt);
      expect(sent.leaseExpiresAt).toEqual(claimedRow.leaseExpiresAt);
    });

    it('retry: pending at app now + delay, attempt + 1, claimed_at cleared, last_error written', async () => {
      await t.store.insert([message('t')]);
      const [m] = await t.store.claim(1, LEASE);
      const at = new Date(Date.now() + 1_000);
      t.clock.pin(at);
      await t.store.complete([{ kind: 'retry', fence: m!, delayMs: 2_500, error: 'HTTP 503' }]);
      const retried = await row(m!.id);
      expect(retried).toMatchObject({
        state: 'pending',
        attempt: 1,
        claimedAt: null,
        lastError: 'HTTP 503',
      });
      expect(retried.scheduledAt.getTime()).toBe(at.getTime() + 2_500);
      expect(retried.updatedAt.getTime()).toBe(at.getTime());
    });

    it('dead: state, claimed_at cleared, last_error written, attempt unchanged', async () => {
      await t.store.insert([message('t')]);
      const [m] = await t.store.claim(1, LEASE);
      await t.store.complete([{ kind: 'dead', fence: m!, error: "No route matches topic 't'" }]);
      expect(await row(m!.id)).toMatchObject({
        state: 'dead',
        attempt: 0,
        claimedAt: null,
        lastError: "No route matches topic 't'",
      });
    });

    it('attempt increments only on retry', async () => {
      await t.store.insert([message('t')]);
      for (let expected = 1; expected <= 3; expected++) {
        const [m] = await t.store.claim(1, LEASE);
        expect(m!.attempt).toBe(expected - 1);
        await t.store.complete([
          { kind: 'retry', fence: m!, delayMs: 0, error: `fail ${expected}` },
        ]);
        expect((await row(m!.id)).attempt).toBe(expected);
      }
      const [m] = await t.store.claim(1, LEASE);
      await t.probe.expireOutboxLease(m!.id);
      await t.store.reclaimExpired();
      const [again] = await t.store.claim(1, LEASE);
      await t.store.complete([{ kind: 'sent', fence: again! }]);
      expect((await row(m!.id)).attempt).toBe(3);
    });
  });

  describe('reclaim, renew, release', () => {
    it('reclaim returns expired and lease-less processing rows to pending without touching attempt', async () => {
      await t.store.insert([message('a'), message('b'), message('c')]);
      const claimed = await t.store.claim(10, LEASE);
      const [a, b, c] = claimed;
      await t.store.complete([{ kind: 'retry', fence: a!, delayMs: 0, error: 'e' }]);
      const [a2] = await t.store.claim(1, LEASE);
      expect(a2!.id).toBe(a!.id);
      await t.probe.expireOutboxLease(a!.id);
      await t.probe.nullOutboxLease(b!.id);
      const at = new Date(Date.now() + 7_000);
      t.clock.pin(at);
      expect(await t.store.reclaimExpired()).toBe(2);
      expect(await row(a!.id)).toMatchObject({ state: 'pending', attempt: 1, claimedAt: null });
      expect((await row(a!.id)).updatedAt.getTime()).toBe(at.getTime());
      expect(await row(b!.id)).toMatchObject({ state: 'pending', attempt: 0, claimedAt: null });
      expect((await row(c!.id)).state).toBe('processing');
      expect(await t.store.reclaimExpired()).toBe(0);
      // The old token of a reclaimed row fences nothing.
      expect((await t.store.complete([{ kind: 'sent', fence: a2! }])).size).toBe(0);
    });

    it('a real short lease expires on the DB clock', async () => {
      await t.store.insert([message('t')]);
      const [m] = await t.store.claim(1, 1);
      await sleep(20);
      expect(await t.store.reclaimExpired()).toBe(1);
      expect((await t.store.complete([{ kind: 'sent', fence: m! }])).size).toBe(0);
    });

    it('renew extends only the rows still owned', async () => {
      await t.store.insert([message('a'), message('b'), message('c'), message('d')]);
      const [a, b, c, d] = await t.store.claim(10, 1_000);
      await t.probe.expireOutboxLease(b!.id);
      await t.store.complete([{ kind: 'sent', fence: c! }]);
      const before = await row(a!.id);
      const owned = await t.store.renew(
        [a!, b!, c!, { id: d!.id, claimToken: STRANGER_TOKEN }],
        120_000,
      );
      expect([...owned]).toEqual([a!.id]);
      const after = await row(a!.id);
      expect(after.leaseExpiresAt!.getTime()).toBeGreaterThan(
        before.leaseExpiresAt!.getTime() + 100_000,
      );
      expect(after.updatedAt).toEqual(before.updatedAt);
      expect((await row(b!.id)).leaseExpiresAt!.getTime()).toBeLessThan(Date.now() + 5_000);
      expect((await t.store.renew([], 1_000)).size).toBe(0);
      await expect(t.store.renew([a!], 0)).rejects.toThrow(/lease/);
    });

    it('release hands owned rows back to pending with attempt and schedule unchanged', async () => {
      await t.store.insert([message('a'), message('b')]);
      const [a, b] = await t.store.claim(10, LEASE);
      const scheduled = (await row(a!.id)).scheduledAt;
      await t.probe.expireOutboxLease(b!.id);
      const released = await t.store.release!([a!, b!]);
      expect([...released]).toEqual([a!.id]);
      expect(await row(a!.id)).toMatchObject({
        state: 'pending',
        attempt: 0,
        claimedAt: null,
        scheduledAt: scheduled,
      });
      expect((await row(b!.id)).state).toBe('processing');
    });
  });
}
