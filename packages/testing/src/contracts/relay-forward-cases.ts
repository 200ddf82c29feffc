/**
 * Relay contract: the fenced writes of the relay (spec §8.3): forward (processed mark + outbox
 * insert in one transaction), dead marks, renewals, the reclaim step and the oldest-pending gauge.
 */
import { randomUUID } from 'node:crypto';
import {
  JsonPayload,
  type NewInboxMessage,
  type RelayClaimedMessage,
  type RelayForward,
} from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { inboxInsert as inboxMessage } from './messages.js';
import { inboxIdOf, inboxRow, storeAll, type RelayCase } from './relay-case.js';
import { sleep } from './test-clock.js';

const LEASE = 60_000;

export function relayForwardCases(t: RelayCase): void {
  const stored = (messages: NewInboxMessage[]) => storeAll(t.store, messages);
  const claimOne = async (m: NewInboxMessage = inboxMessage(), leaseMs = LEASE) => {
    await stored([m]);
    const [claimed] = await t.store.claimForRelay(1, leaseMs);
    return claimed!;
  };
  const relayForward = (m: RelayClaimedMessage, token = m.claimToken): RelayForward => ({
    fence: { id: m.id, claimToken: token },
    outbox: {
      id: randomUUID(),
      topic: `topic.${m.eventType ?? ''}`,
      key: m.aggregateId,
      headers: { 'x-inbox-id': m.id },
      maxAttempts: 7,
    },
  });
  const row = (id: string) => inboxRow(t.probe, id);
  const outboxRows = () => t.probe.outboxRows();

  describe('forward and fences', () => {
    it('writes the outbox row of spec §8.3 and marks the inbox row processed, in one statement', async () => {
      const claimed = await claimOne(
        inboxMessage({ aggregateId: 'order-9', payload: JsonPayload.fromValue({ a: [1, 'x'] }) }),
      );
      t.clock.set(new Date('2030-01-01T00:00:05.000Z'));
      const forward = relayForward(claimed);
      expect(await t.store.forward([forward])).toEqual(new Set([claimed.id]));
      const [out] = await outboxRows();
      expect(out).toMatchObject({
        id: forward.outbox.id,
        topic: 'topic.order.created',
        key: 'order-9',
        payload: { a: [1, 'x'] },
        headers: { 'x-inbox-id': claimed.id },
        aggregateType: null,
        state: 'pending',
        attempt: 0,
        maxAttempts: 7,
        scheduledAt: t.clock.now(),
        createdAt: t.clock.now(),
        updatedAt: t.clock.now(),
        claimedAt: null,
        claimToken: null,
        leaseExpiresAt: null,
        lastError: null,
      });
      expect(out!.sequence).not.toBeNull();
      expect(await row(claimed.id)).toMatchObject({
        state: 'processed',
        processedAt: t.clock.now(),
      });
    });

    it('inserts a batch in the order given, so the sequence follows the claim order', async () => {
      await stored([inboxMessage(), inboxMessage(), inboxMessage()]);
      const claimed = await t.store.claimForRelay(10, LEASE);
      const order = [claimed[2]!, claimed[0]!, claimed[1]!];
      expect(await t.store.forward(order.map((m) => relayForward(m)))).toEqual(
        new Set(claimed.map((m) => m.id)),
      );
      expect((await outboxRows()).map(inboxIdOf)).toEqual(order.map((m) => m.id));
    });

    it('writes nothing for a stale token and does not return the row', async () => {
      const claimed = await claimOne();
      expect(await t.store.forward([relayForward(claimed, randomUUID())])).toEqual(new Set());
      expect(await outboxRows()).toHaveLength(0);
      expect(await row(claimed.id)).toMatchObject({
        state: 'processing',
        claimToken: claimed.claimToken,
      });
    });

    it('writes nothing for an expired lease', async () => {
      const claimed = await claimOne(inboxMessage(), 1);
      await sleep(20);
      expect(await t.store.forward([relayForward(claimed)])).toEqual(new Set());
      expect(await outboxRows()).toHaveLength(0);
      expect((await row(claimed.id)).state).toBe('processing');
    });

    it('forwards the rows of a batch whose fence held and only those', async () => {
      await stored([inboxMessage(), inboxMessage(), inboxMessage()]);
      const [a, b, c] = await t.store.claimForRelay(10, LEASE);
      await t.probe.expireInboxLease(c!.id);
      const held = await t.store.forward([
        relayForward(a!),
        relayForward(b!, randomUUID()),
        relayForward(c!),
      ]);
      expect(held).toEqual(new Set([a!.id]));
      expect((await outboxRows()).map(inboxIdOf)).toEqual([a!.id]);
      expect((await row(b!.id)).state).toBe('processing');
    });

    it('never writes a second outbox row after a relay died between claim and forward', async () => {
      // Replica 1 claims and dies; the lease runs out; the reclaim step returns the row; replica
      // 2 claims it anew and forwards. Replica 1 waking up late must write nothing.
      const first = await claimOne(inboxMessage({ aggregateId: 'A' }), 50);
      await sleep(80);
      expect(await t.store.reclaimExpired()).toBe(1);
      expect(await t.store.forward([relayForward(first)])).toEqual(new Set());
      const [second] = await t.store.claimForRelay(10, LEASE);
      expect(second!.id).toBe(first.id);
      expect(second!.claimToken).not.toBe(first.claimToken);
      expect(await t.store.forward([relayForward(first)])).toEqual(new Set());
      expect(await t.store.forward([relayForward(second!)])).toEqual(new Set([first.id]));
      expect(await t.store.forward([relayForward(second!)])).toEqual(new Set());
      expect(await outboxRows()).toHaveLength(1);
    });

    it('rolls the outbox insert back with the mark when the statement fails', async () => {
      const claimed = await claimOne();
      const bad = relayForward(claimed);
      // Longer than the 255 characters the topic column takes.
      const tooLong: RelayForward = { ...bad, outbox: { ...bad.outbox, topic: 't'.repeat(300) } };
      await expect(t.store.forward([tooLong])).rejects.toThrow();
      expect(await outboxRows()).toHaveLength(0);
      expect((await row(claimed.id)).state).toBe('processing');
    });

    it('marks dead under the fence and clears claimed_at', async () => {
      await stored([inboxMessage(), inboxMessage()]);
      const [a, b] = await t.store.claimForRelay(10, LEASE);
      const held = await t.store.markDead([
        { id: a!.id, claimToken: a!.claimToken },
        { id: b!.id, claimToken: randomUUID() },
      ]);
      expect(held).toEqual(new Set([a!.id]));
      expect(await row(a!.id)).toMatchObject({ state: 'dead', claimedAt: null });
      expect((await row(b!.id)).state).toBe('processing');
      expect(await outboxRows()).toHaveLength(0);
    });

    it('renews live leases under the fence only', async () => {
      await stored([inboxMessage(), inboxMessage(), inboxMessage()]);
      const [a, b, c] = await t.store.claimForRelay(10, 1_000);
      await t.probe.expireInboxLease(c!.id);
      const before = (await row(a!.id)).leaseExpiresAt!;
      const held = await t.store.renew(
        [a!, b!, c!].map((m, n) => ({
          id: m.id,
          claimToken: n === 1 ? randomUUID() : m.claimToken,
        })),
        LEASE,
      );
      expect(held).toEqual(new Set([a!.id]));
      const after = (await row(a!.id)).leaseExpiresAt!;
      expect(after.getTime() - before.getTime()).toBeGreaterThan(LEASE - 1_000 - 1_000);
      expect(await t.store.renew([], LEASE)).toEqual(new Set());
    });

    it('reclaims expired and lease-less processing rows of both consumption modes, nothing else', async () => {
      const [expiredPush, expiredPull, noLease, live, pending] = await stored([
        inboxMessage(),
        inboxMessage({ consumption: 'pull' }),
        inboxMessage(),
        inboxMessage(),
        inboxMessage(),
      ]);
      await t.probe.setInboxProcessing(expiredPush!.id, -1_000);
      await t.probe.setInboxProcessing(expiredPull!.id, -1_000);
      await t.probe.setInboxProcessing(noLease!.id, null);
      await t.probe.setInboxProcessing(live!.id, 60_000);
      expect(await t.store.reclaimExpired()).toBe(3);
      for (const m of [expiredPush!, expiredPull!, noLease!]) {
        expect(await row(m.id)).toMatchObject({ state: 'pending', claimedAt: null });
      }
      expect((await row(live!.id)).state).toBe('processing');
      expect((await row(pending!.id)).state).toBe('pending');
      expect(await t.store.reclaimExpired()).toBe(0);
    });

    it('reports the age of the oldest pending row of both modes, 0 when none', async () => {
      expect(await t.store.oldestPendingAgeSeconds()).toBe(0);
      t.clock.set(new Date(Date.now() - 100_000));
      await stored([inboxMessage({ consumption: 'pull' })]);
      t.clock.set(new Date(Date.now() - 200_000));
      const [processing] = await stored([inboxMessage()]);
      await t.probe.setInboxState(processing!.id, 'processing');
      const age = await t.store.oldestPendingAgeSeconds();
      expect(age).toBeGreaterThanOrEqual(99);
      expect(age).toBeLessThan(130);
      // A row stamped by an app clock ahead of the database's never gives a negative age.
      await t.probe.clear();
      t.clock.set(new Date(Date.now() + 60_000));
      await stored([inboxMessage()]);
      expect(await t.store.oldestPendingAgeSeconds()).toBe(0);
    });
  });
}
