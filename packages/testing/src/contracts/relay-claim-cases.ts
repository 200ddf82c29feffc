/** Relay contract: the batched relay claim (spec §8.2, §8.4). */
import { JsonPayload, type NewInboxMessage, type RelayClaimedMessage } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { inboxInsert as inboxMessage } from './messages.js';
import type { Replica } from './probe.js';
import { inboxIdOf, inboxRow, plainForward, storeAll, type RelayCase } from './relay-case.js';
import { idsOf as ids, sleep } from './test-clock.js';
import type { InboxStore } from '@queuebox/core';

const LEASE = 60_000;
const HOUR = 3_600_000;

export function relayClaimCases(t: RelayCase): void {
  const stored = (messages: NewInboxMessage[], initialDelayMs = 0) =>
    storeAll(t.store, messages, initialDelayMs);
  const agg = (aggregateId: string | null, n = 1): NewInboxMessage[] =>
    Array.from({ length: n }, () => inboxMessage({ aggregateId }));
  const claim = (limit: number) => t.store.claimForRelay(limit, LEASE);
  const forwardAll = (claimed: readonly RelayClaimedMessage[]) =>
    t.store.forward(claimed.map(plainForward));
  const row = (id: string) => inboxRow(t.probe, id);
  /** Stores at once (one grouped insert): scheduled_at still follows the argument order. */
  const storeBulk = async (messages: NewInboxMessage[]): Promise<NewInboxMessage[]> => {
    await Promise.all(messages.map((m) => t.store.store(m, { initialDelayMs: 0 })));
    return messages;
  };
  /** A head of `aggregateId` in flight (a lease far ahead, so no reclaim frees it). */
  const busyAggregate = async (aggregateId: string) => {
    const [head] = await stored([inboxMessage({ aggregateId })]);
    await t.probe.setInboxProcessing(head!.id, HOUR);
  };

  describe('relay claim', () => {
    it('claims due push rows in (scheduled_at, created_at) order under a DB-clock lease', async () => {
      const messages = await stored([
        inboxMessage({ aggregateId: 'a' }),
        inboxMessage({ aggregateId: 'b' }),
        inboxMessage(),
      ]);
      const before = await t.probe.dbNow();
      const claimed = await claim(10);
      expect(ids(claimed)).toEqual(ids(messages));
      for (const m of claimed) {
        expect(m).toMatchObject({
          state: 'processing',
          source: 'orders',
          consumption: 'push',
          attempt: 0,
        });
        expect(m.claimToken).toMatch(/^[0-9a-f-]{36}$/);
        const r = await row(m.id);
        expect(r.claimToken).toBe(m.claimToken);
        expect(r.claimedAt).toEqual(t.clock.now());
        const leaseAt = r.leaseExpiresAt!.getTime() - before.getTime();
        expect(leaseAt).toBeGreaterThanOrEqual(LEASE);
        expect(leaseAt).toBeLessThan(LEASE + 5_000);
      }
      expect(new Set(claimed.map((m) => m.claimToken)).size).toBe(3);
    });

    it('claims at most `limit` rows, the earliest ones', async () => {
      const messages = await stored(agg(null, 5));
      expect(ids(await claim(2))).toEqual(ids(messages.slice(0, 2)));
      expect(ids(await claim(10))).toEqual(ids(messages.slice(2)));
      expect(await claim(10)).toEqual([]);
    });

    it('forwards one aggregate one row at a time, in order', async () => {
      const messages = await stored(agg('order-7', 3));
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        const claimed = await claim(10);
        expect(claimed).toHaveLength(1);
        // The aggregate is busy while its row is processing.
        expect(await claim(10)).toEqual([]);
        seen.push(...ids(claimed));
        await forwardAll(claimed);
      }
      expect(seen).toEqual(ids(messages));
    });

    it('claims the heads of two aggregates in parallel', async () => {
      const [a1, b1, a2, b2] = await stored([
        inboxMessage({ aggregateId: 'A' }),
        inboxMessage({ aggregateId: 'B' }),
        inboxMessage({ aggregateId: 'A' }),
        inboxMessage({ aggregateId: 'B' }),
      ]);
      const first = await claim(10);
      expect(ids(first)).toEqual([a1!.id, b1!.id]);
      await forwardAll(first);
      expect(ids(await claim(10))).toEqual([a2!.id, b2!.id]);
    });

    it('treats every row without an aggregate as eligible', async () => {
      const messages = await stored(agg(null, 4));
      expect(ids(await claim(10))).toEqual(ids(messages));
    });

    it('skips an aggregate with any processing row: other source, pull, expired lease alike', async () => {
      const blockers = await stored([
        inboxMessage({ aggregateId: 'P', source: 'payments', consumption: 'pull' }),
        inboxMessage({ aggregateId: 'Q', source: 'payments' }),
      ]);
      await t.probe.setInboxProcessing(blockers[0]!.id, 60_000);
      await t.probe.setInboxProcessing(blockers[1]!.id, -60_000);
      const [p, q, free] = await stored([
        inboxMessage({ aggregateId: 'P' }),
        inboxMessage({ aggregateId: 'Q' }),
        inboxMessage({ aggregateId: 'R' }),
      ]);
      expect(ids(await claim(10))).toEqual([free!.id]);
      expect((await row(p!.id)).state).toBe('pending');
      expect((await row(q!.id)).state).toBe('pending');
    });

    it('never claims or touches pull rows', async () => {
      const pull = await stored([
        inboxMessage({ consumption: 'pull' }),
        inboxMessage({ consumption: 'pull', aggregateId: 'X' }),
      ]);
      const push = await stored([inboxMessage({ aggregateId: 'X' })]);
      expect(ids(await claim(10))).toEqual(ids(push));
      for (const m of pull)
        expect(await row(m.id)).toMatchObject({
          state: 'pending',
          claimToken: null,
          claimedAt: null,
        });
    });

    it('orders by scheduled_at before created_at and waits for rows that are not due', async () => {
      const [delayed] = await stored([inboxMessage({ aggregateId: 'D' })], 60_000);
      const [plain] = await stored([inboxMessage({ aggregateId: 'D' })]);
      const [early] = await stored([inboxMessage({ publishTime: new Date(Date.now() - HOUR) })]);
      // `early` was stored last but is scheduled an hour back; the delayed head of D is not due,
      // so D's later row goes first (spec §8.4: initialDelay can reorder an aggregate).
      expect(ids(await claim(10))).toEqual([early!.id, plain!.id]);
      expect((await row(delayed!.id)).state).toBe('pending');
    });

    it('looks past a run of one aggregate to the heads behind it', async () => {
      await stored(agg('hot', 80));
      const others = await stored([
        inboxMessage({ aggregateId: 'x' }),
        inboxMessage({ aggregateId: 'y' }),
      ]);
      const claimed = await claim(10);
      expect(claimed.map((m) => m.aggregateId)).toEqual(['hot', 'x', 'y']);
      expect(ids(claimed.slice(1))).toEqual(ids(others));
    });

    it('passes over a busy aggregate whose backlog is larger than the window (batch 100, window 500)', async () => {
      await busyAggregate('X');
      await storeBulk(agg('X', 600));
      const [other, loose] = await stored([inboxMessage({ aggregateId: 'Y' }), inboxMessage()]);
      expect(ids(await claim(100))).toEqual([other!.id, loose!.id]);
    });

    it('passes over a busy backlog at batch 1 too (window 100), one row per claim', async () => {
      await busyAggregate('X');
      await storeBulk(agg('X', 150));
      const [other, loose] = await stored([inboxMessage({ aggregateId: 'Y' }), inboxMessage()]);
      expect(ids(await claim(1))).toEqual([other!.id]);
      expect(ids(await claim(1))).toEqual([loose!.id]);
      expect(await claim(1)).toEqual([]);
    });

    it('looks past a free aggregate whose backlog is larger than the window', async () => {
      const [hotHead] = await storeBulk(agg('hot', 600));
      const [other, loose] = await stored([inboxMessage({ aggregateId: 'Y' }), inboxMessage()]);
      expect(ids(await claim(100))).toEqual([hotHead!.id, other!.id, loose!.id]);
    });

    it('fills a batch across several windows of busy and free backlogs, each aggregate by its head', async () => {
      const [hotHead] = await storeBulk(agg('hot', 150));
      await busyAggregate('X');
      await storeBulk(agg('X', 150));
      const tail = await stored([
        inboxMessage({ aggregateId: 'a' }),
        inboxMessage(),
        inboxMessage({ aggregateId: 'a' }),
        inboxMessage({ aggregateId: 'b' }),
        inboxMessage({ aggregateId: 'hot' }),
        inboxMessage(),
      ]);
      // Window 100 at a batch of 10: the first window is all `hot`, the next ones pass over X.
      expect(ids(await claim(10))).toEqual([
        hotHead!.id,
        tail[0]!.id,
        tail[1]!.id,
        tail[3]!.id,
        tail[5]!.id,
      ]);
    });

    it('reads a tie group larger than the window whole: the head of each aggregate is its least id', async () => {
      // One publish time and one app clock: every row has the same scheduled_at and created_at.
      const publishTime = new Date(Date.now() - 60_000);
      const tied = Array.from({ length: 150 }, (_, n) =>
        inboxMessage({ aggregateId: `t-${n % 3}`, publishTime }),
      );
      await storeBulk(tied);
      const heads = ['t-0', 't-1', 't-2'].map(
        (aggregateId) =>
          tied
            .filter((m) => m.aggregateId === aggregateId)
            .map((m) => m.id)
            .sort()[0]!,
      );
      const first = await claim(2);
      expect(ids(first)).toEqual([...heads].sort().slice(0, 2));
      expect(ids(await claim(10))).toEqual([...heads].sort().slice(2));
    });

    it('skips a head another transaction holds, and never replaces it by a later row of its aggregate', async () => {
      const [a1, , b1] = await stored([
        inboxMessage({ aggregateId: 'A' }),
        inboxMessage({ aggregateId: 'A' }),
        inboxMessage({ aggregateId: 'B' }),
      ]);
      await t.probe.withInboxRowLocked(a1!.id, async () => {
        expect(ids(await claim(10))).toEqual([b1!.id]);
      });
      expect(ids(await claim(10))).toEqual([a1!.id]);
    });

    it('keeps one processing row per aggregate with two relays and a writer running at once', async () => {
      await twoRelaysAndAWriter(t);
    });

    it('claims nothing when nothing is due', async () => {
      await stored([inboxMessage()], HOUR);
      expect(await claim(10)).toEqual([]);
    });
  });
}

/** Two stores on connections of their own stand for two replicas; a third keeps storing. */
async function twoRelaysAndAWriter(t: RelayCase): Promise<void> {
  const aggregates = Array.from({ length: 4 }, (_, n) => `agg-${n}`);
  const replica: Replica<InboxStore> = await t.harness.replica(t.clock);
  const created: string[] = [];
  const storeRound = async (round: number) => {
    for (const aggregateId of aggregates) {
      const m = inboxMessage({ aggregateId, payload: JsonPayload.fromValue({ round }) });
      await t.store.store(m, { initialDelayMs: 0 });
      created.push(m.id);
    }
  };
  // A backlog first, so every aggregate has several pending rows when the relays start.
  for (let round = 0; round < 10; round++) await storeRound(round);
  let writing = true;
  const writer = (async () => {
    for (let round = 10; round < 20; round++) await storeRound(round);
    writing = false;
  })();
  const pendingCount = async () =>
    (await t.probe.inboxRows()).filter((r) => r.state !== 'processed').length;
  const violations: string[] = [];
  const monitor = (async () => {
    while (writing || (await pendingCount()) > 0) {
      const processing = new Map<string, number>();
      for (const r of await t.probe.inboxRows()) {
        if (r.state !== 'processing') continue;
        const key = String(r.aggregateId);
        processing.set(key, (processing.get(key) ?? 0) + 1);
      }
      for (const [key, n] of processing) if (n > 1) violations.push(key);
      await sleep(1);
    }
  })();
  const relay = async (s: InboxStore) => {
    while (writing || (await pendingCount()) > 0) {
      const claimed = await s.claimForRelay(5, LEASE);
      // Interleave: give the other replica a chance to claim between claim and forward.
      await sleep(Math.random() * 5);
      if (claimed.length > 0) await s.forward(claimed.map(plainForward));
    }
  };
  try {
    await Promise.all([writer, relay(t.store), relay(replica.store), monitor]);
  } finally {
    await replica.close();
  }
  expect(violations).toEqual([]);
  const outbox = await t.probe.outboxRows();
  // Exactly one outbox row per inbox row, and per key in the order the rows were stored.
  expect(outbox.map(inboxIdOf).sort()).toEqual([...created].sort());
  const inbox = await t.probe.inboxRows();
  for (const aggregateId of aggregates) {
    const inStoreOrder = inbox
      .filter((r) => r.aggregateId === aggregateId)
      .sort(
        (a, b) =>
          a.createdAt.getTime() - b.createdAt.getTime() ||
          a.scheduledAt.getTime() - b.scheduledAt.getTime(),
      )
      .map((r) => r.id);
    expect(outbox.filter((r) => r.key === aggregateId).map(inboxIdOf)).toEqual(inStoreOrder);
  }
}
