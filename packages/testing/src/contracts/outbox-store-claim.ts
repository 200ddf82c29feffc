/** Outbox store contract: insert and claim (spec §4.2, §4.7). */
import { describe, expect, it } from 'vitest';
import { outboxInsert as message } from './messages.js';
import { LEASE, outboxRow, type OutboxCase } from './outbox-store-case.js';
import { idsOf as ids } from './test-clock.js';

export function outboxClaimCases(t: OutboxCase): void {
  describe('insert', () => {
    it('writes defaults for the optional fields and leaves sequence to the database, in array order', async () => {
      const due = new Date(Date.now() + 60_000);
      await t.store.insert([
        message('a.one', 'k'),
        {
          topic: 'a.two',
          payload: [1, 2],
          headers: { 'x-h': 'v' },
          aggregateType: 'Order',
          maxAttempts: 9,
          scheduledAt: due,
        },
        { id: '2f1e9c7a-3a44-4a55-9c7e-0a1b2c3d4e5f', topic: 'a.three', payload: { n: 3 } },
      ]);
      const all = await t.probe.outboxRows();
      expect(all.map((r) => r.topic)).toEqual(['a.one', 'a.two', 'a.three']);
      const [one, two, three] = all;
      expect(one).toMatchObject({
        state: 'pending',
        attempt: 0,
        maxAttempts: 5,
        headers: {},
        key: 'k',
        claimToken: null,
      });
      expect(one!.payload).toEqual({ topic: 'a.one', key: 'k' });
      expect(two).toMatchObject({
        payload: [1, 2],
        headers: { 'x-h': 'v' },
        aggregateType: 'Order',
        maxAttempts: 9,
        key: null,
      });
      expect(two!.scheduledAt.getTime()).toBe(due.getTime());
      expect(three!.id).toBe('2f1e9c7a-3a44-4a55-9c7e-0a1b2c3d4e5f');
      expect(one!.sequence < two!.sequence && two!.sequence < three!.sequence).toBe(true);
    });

    it('accepts an empty batch', async () => {
      await t.store.insert([]);
      expect(await t.probe.outboxRows()).toEqual([]);
    });
  });

  describe('claim', () => {
    it('takes only due pending rows and leaves others alone', async () => {
      const [due] = await t.probe.insertOutbox([{ topic: 'due' }]);
      await t.probe.insertOutbox([
        { topic: 'later', scheduledAt: new Date(Date.now() + 3_600_000) },
        { topic: 'sent', state: 'sent' },
        { topic: 'dead', state: 'dead' },
        { topic: 'busy', state: 'processing' },
      ]);
      const claimed = await t.store.claim(10, LEASE);
      expect(ids(claimed)).toEqual([due]);
      expect(claimed[0]).toMatchObject({
        state: 'processing',
        topic: 'due',
        attempt: 0,
        maxAttempts: 5,
      });
      expect(typeof claimed[0]!.sequence).toBe('bigint');
      const states = Object.fromEntries(
        (await t.probe.outboxRows()).map((r) => [r.topic, r.state]),
      );
      expect(states).toEqual({
        due: 'processing',
        later: 'pending',
        sent: 'sent',
        dead: 'dead',
        busy: 'processing',
      });
    });

    it('returns the payload as the database holds it, every number exactly as stored', async () => {
      const id = await t.probe.insertOutboxPayloadText(
        'a.numbers',
        '{"id": 12345678901234567890, "amount": 1.50, "big": 1e30}',
      );
      const [claimed] = await t.store.claim(1, LEASE);
      expect(claimed!.payload.text).toBe(await t.probe.outboxPayloadText(id));
      // No number went through a double on the way out.
      expect(claimed!.payload.text).toContain('12345678901234567890');
      expect(claimed!.payload.text).toContain('1.50');
    });

    it('judges "due" by the app clock', async () => {
      await t.probe.insertOutbox([
        { topic: 'in-an-hour', scheduledAt: new Date(Date.now() + 3_600_000) },
      ]);
      expect(await t.store.claim(10, LEASE)).toEqual([]);
      t.clock.shift(3_600_000 + 1_000);
      expect((await t.store.claim(10, LEASE)).map((m) => m.topic)).toEqual(['in-an-hour']);
    });

    it('writes token, claimed_at/updated_at on the app clock and the lease on the DB clock', async () => {
      const [id] = await t.probe.insertOutbox([{ topic: 't' }]);
      const appNow = new Date(Date.now() + 86_400_000);
      t.clock.pin(appNow);
      const before = await t.probe.dbNow();
      const [claimed] = await t.store.claim(1, LEASE);
      const after = await t.probe.dbNow();
      const row = await outboxRow(t, id!);
      expect(row.state).toBe('processing');
      expect(row.claimToken).toBe(claimed!.claimToken);
      expect(row.claimToken).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.claimedAt!.getTime()).toBe(appNow.getTime());
      expect(row.updatedAt.getTime()).toBe(appNow.getTime());
      // The app clock is a day ahead; the lease must not follow it.
      expect(row.leaseExpiresAt!.getTime()).toBeGreaterThanOrEqual(before.getTime() + LEASE - 1);
      expect(row.leaseExpiresAt!.getTime()).toBeLessThanOrEqual(after.getTime() + LEASE + 1);
    });

    it('gives every claim a fresh token', async () => {
      const [id] = await t.probe.insertOutbox([{ topic: 't' }]);
      const [first] = await t.store.claim(1, LEASE);
      await t.probe.expireOutboxLease(id!);
      expect(await t.store.reclaimExpired()).toBe(1);
      const [second] = await t.store.claim(1, LEASE);
      expect(second!.id).toBe(first!.id);
      expect(second!.claimToken).not.toBe(first!.claimToken);
    });

    it('respects the limit and returns rows sorted by (scheduled_at, created_at)', async () => {
      const base = Date.now() - 60_000;
      await t.probe.insertOutbox([
        { topic: 'c', scheduledAt: new Date(base + 3_000) },
        { topic: 'a', scheduledAt: new Date(base + 1_000) },
        { topic: 'd', scheduledAt: new Date(base + 4_000) },
        { topic: 'b', scheduledAt: new Date(base + 2_000) },
      ]);
      expect((await t.store.claim(3, LEASE)).map((m) => m.topic)).toEqual(['a', 'b', 'c']);
      expect((await t.store.claim(3, LEASE)).map((m) => m.topic)).toEqual(['d']);
      expect(await t.store.claim(3, LEASE)).toEqual([]);
    });

    it('orders by scheduled_at before sequence, and by sequence inside one scheduled_at', async () => {
      const past = new Date(Date.now() - 60_000);
      // One multi-row insert: every row without a schedule shares one insert timestamp.
      await t.store.insert([
        message('tie-1'),
        message('tie-2'),
        message('tie-3'),
        message('early', null, { scheduledAt: past }),
      ]);
      const claimed = await t.store.claim(2, LEASE);
      expect(claimed.map((m) => m.topic)).toEqual(['early', 'tie-1']);
      expect((await t.store.claim(5, LEASE)).map((m) => m.topic)).toEqual(['tie-2', 'tie-3']);
    });

    it('refuses a non-positive limit and a lease outside [1, 2^31-1]', async () => {
      await expect(t.store.claim(0, LEASE)).rejects.toThrow(/batch size/);
      await expect(t.store.claim(1.5, LEASE)).rejects.toThrow(/batch size/);
      await expect(t.store.claim(1, 0)).rejects.toThrow(/lease/);
      await expect(t.store.claim(1, 2 ** 31)).rejects.toThrow(/lease/);
      await t.probe.insertOutbox([{ topic: 't' }]);
      const [claimed] = await t.store.claim(1, 2 ** 31 - 1);
      expect(claimed).toBeDefined();
    });
  });
}
