/**
 * The inbox store contract, storing half (spec §7.4): one row per (source, idempotency key), the
 * columns each store writes, the schedule from the DB clock, and grouped concurrent stores that
 * each resolve on their own. The relay half is relay-contract.ts.
 */
import { randomUUID } from 'node:crypto';
import { JsonPayload, type Clock, type InboxStore, type NewInboxMessage } from '@queuebox/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inboxInsert } from './messages.js';
import { skipTitle, type ContractTarget, type InboxProbe, type StoreHarness } from './probe.js';

export type InboxHarness = StoreHarness<InboxStore, InboxProbe>;

const NOW = new Date('2030-01-01T00:00:00.000Z');
const fixedClock: Clock = { now: () => NOW };

function message(overrides: Partial<NewInboxMessage> = {}): NewInboxMessage {
  return inboxInsert({
    aggregateId: 'order-1',
    headers: { 'content-type': 'application/json' },
    correlationId: 'corr-1',
    ...overrides,
  });
}

export function inboxStoreContract(target: ContractTarget<InboxHarness>): void {
  const title = `inbox store contract: ${target.label}`;
  describe.skipIf(Boolean(target.skip))(skipTitle(title, target.skip), () => {
    let harness: InboxHarness;
    let probe: InboxProbe;
    let store: InboxStore;

    beforeAll(async () => {
      harness = await target.open();
      probe = harness.probe;
      store = harness.store(fixedClock);
    });

    afterAll(async () => {
      await harness?.drop();
    });

    beforeEach(async () => {
      await probe.clear();
    });

    const rows = () => probe.inboxRows();

    it('stores a new message with every column of spec §7.4', async () => {
      const m = message({ headers: { 'x-a': '1', 'X-B': 'two' } });
      const before = await probe.dbNow();
      expect(await store.store(m, { initialDelayMs: 0 })).toEqual({ kind: 'stored' });
      const after = await probe.dbNow();
      const [row] = (await rows()).filter((r) => r.id === m.id);
      expect(row).toMatchObject({
        id: m.id,
        source: 'orders',
        idempotencyKey: m.idempotencyKey,
        aggregateId: 'order-1',
        eventType: 'order.created',
        payload: { n: 1 },
        headers: { 'x-a': '1', 'X-B': 'two' },
        correlationId: 'corr-1',
        consumption: 'push',
        state: 'pending',
        createdAt: NOW,
        attempt: 0,
        processedAt: null,
        claimedAt: null,
        claimToken: null,
        leaseExpiresAt: null,
        lastError: null,
      });
      // scheduled_at is the DB clock at the insert, created_at the app clock.
      expect(row!.scheduledAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
      expect(row!.scheduledAt.getTime()).toBeLessThanOrEqual(after.getTime());
    });

    it('answers duplicate for a repeated (source, key) and keeps the first row', async () => {
      const first = message({ payload: JsonPayload.fromValue({ v: 'first' }) });
      const repeat = message({
        idempotencyKey: first.idempotencyKey,
        payload: JsonPayload.fromValue({ v: 'second' }),
      });
      expect(await store.store(first, { initialDelayMs: 0 })).toEqual({ kind: 'stored' });
      expect(await store.store(repeat, { initialDelayMs: 0 })).toEqual({ kind: 'duplicate' });
      const found = await rows();
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ id: first.id, payload: { v: 'first' } });
    });

    it('deduplicates per source: the same key on another source is a new message', async () => {
      const a = message();
      const b = message({ source: 'payments', idempotencyKey: a.idempotencyKey });
      expect(await store.store(a, { initialDelayMs: 0 })).toEqual({ kind: 'stored' });
      expect(await store.store(b, { initialDelayMs: 0 })).toEqual({ kind: 'stored' });
      expect(await rows()).toHaveLength(2);
    });

    it('writes a dead row with no delay for storeDead', async () => {
      const m = message({ payload: JsonPayload.fromValue({ raw: 'not json' }) });
      const before = await probe.dbNow();
      expect(await store.store(m, { initialDelayMs: 60_000, dead: true })).toEqual({
        kind: 'stored',
      });
      const [row] = await rows();
      expect(row).toMatchObject({ state: 'dead', payload: { raw: 'not json' } });
      expect(row!.scheduledAt.getTime() - before.getTime()).toBeLessThan(5_000);
      expect(await store.store(m, { initialDelayMs: 0, dead: true })).toEqual({
        kind: 'duplicate',
      });
    });

    it('stores the reason of a dead row in last_error, and none for a pending row', async () => {
      const dead = message({ payload: JsonPayload.fromValue({ raw: 'not json' }) });
      const reason = 'The body is not JSON: a syntax error. \u00e9 \u{1F600}';
      await store.store(dead, { initialDelayMs: 0, dead: true, lastError: reason });
      const pending = message();
      await store.store(pending, { initialDelayMs: 0, lastError: 'not for a pending row' });
      const found = await rows();
      expect(found.find((r) => r.id === dead.id)).toMatchObject({
        state: 'dead',
        lastError: reason,
      });
      expect(found.find((r) => r.id === pending.id)).toMatchObject({
        state: 'pending',
        lastError: null,
      });
    });

    it('stores pull messages with consumption pull', async () => {
      await store.store(message({ consumption: 'pull' }), { initialDelayMs: 0 });
      expect((await rows())[0]).toMatchObject({ consumption: 'pull', state: 'pending' });
    });

    it('adds the initial delay in milliseconds to the DB clock', async () => {
      const before = await probe.dbNow();
      await store.store(message(), { initialDelayMs: 90_500 });
      const after = await probe.dbNow();
      const at = (await rows())[0]!.scheduledAt.getTime();
      expect(at).toBeGreaterThanOrEqual(before.getTime() + 90_500);
      expect(at).toBeLessThanOrEqual(after.getTime() + 90_500);
    });

    it('schedules from an earlier publish time plus the delay (LEAST of DB now and publish time)', async () => {
      const published = new Date(Date.now() - 3_600_000);
      await store.store(message({ publishTime: published }), { initialDelayMs: 1_000 });
      expect((await rows())[0]!.scheduledAt.getTime()).toBe(published.getTime() + 1_000);
    });

    it('counts a publish time later than receipt as receipt', async () => {
      const m = message({ publishTime: new Date(Date.now() + 86_400_000) });
      const before = await probe.dbNow();
      await store.store(m, { initialDelayMs: 0 });
      const after = await probe.dbNow();
      const at = (await rows())[0]!.scheduledAt.getTime();
      expect(at).toBeGreaterThanOrEqual(before.getTime());
      expect(at).toBeLessThanOrEqual(after.getTime());
    });

    it('resolves grouped concurrent stores one by one, also two equal keys in one group', async () => {
      // 300 calls in one turn of the event loop: an adapter may group them into shared
      // statements. Every key is sent twice; the first call of each key wins, the second is a
      // duplicate.
      const keys = Array.from({ length: 150 }, () => randomUUID());
      const calls = [...keys, ...keys].map((key) =>
        message({ idempotencyKey: key, aggregateId: null }),
      );
      const results = await Promise.all(calls.map((m) => store.store(m, { initialDelayMs: 0 })));
      expect(results.slice(0, 150).every((r) => r.kind === 'stored')).toBe(true);
      expect(results.slice(150).every((r) => r.kind === 'duplicate')).toBe(true);
      const found = await rows();
      expect(found).toHaveLength(150);
      expect(new Set(found.map((r) => r.id))).toEqual(
        new Set(calls.slice(0, 150).map((m) => m.id)),
      );
    });

    it('keeps call order in scheduled_at within a group', async () => {
      const calls = Array.from({ length: 50 }, (_, n) =>
        message({ payload: JsonPayload.fromValue({ n }) }),
      );
      await Promise.all(calls.map((m) => store.store(m, { initialDelayMs: 0 })));
      expect((await rows()).map((r) => (r.payload as { n: number }).n)).toEqual(
        calls.map((_, n) => n),
      );
    });

    it('fails only the bad call of a group: its neighbours are stored', async () => {
      const good = [message(), message(), message()];
      // Longer than the 255 characters the idempotency key column takes.
      const bad = message({ idempotencyKey: 'k'.repeat(300) });
      const outcomes = await Promise.allSettled(
        [good[0]!, bad, good[1]!, good[2]!].map((m) => store.store(m, { initialDelayMs: 0 })),
      );
      expect(outcomes.map((o) => o.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      expect(new Set((await rows()).map((r) => r.id))).toEqual(new Set(good.map((m) => m.id)));
    });

    it('a message stored again after a group committed is a duplicate across groups', async () => {
      const m = message();
      await Promise.all([
        store.store(m, { initialDelayMs: 0 }),
        store.store(message(), { initialDelayMs: 0 }),
      ]);
      const again = await Promise.all([
        store.store(message({ idempotencyKey: m.idempotencyKey }), { initialDelayMs: 0 }),
        store.store(message(), { initialDelayMs: 0 }),
      ]);
      expect(again.map((r) => r.kind)).toEqual(['duplicate', 'stored']);
    });
  });
}
