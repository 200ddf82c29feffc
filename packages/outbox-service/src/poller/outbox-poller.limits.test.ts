import type { DestinationRateLimit } from '@queuebox/core';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeRouter } from '../../test/poller-fakes.js';
import { pollerHarness, type PollerHarness } from '../../test/poller-harness.js';
import { FakePublisher, until } from '@queuebox/testing';

let h: PollerHarness | undefined;
afterEach(async () => {
  await h?.poller.close();
  h = undefined;
});

const limited = (rateLimit: Partial<DestinationRateLimit>) => ({
  rateLimit: { perSecond: null, burst: null, maxInFlight: null, ...rateLimit },
});

/** Answers after `ms`; records when each publish started (monotonic ms). */
function timedPublisher(destination: string, ms: number, type: 'http' | 'rabbitmq' = 'http') {
  const starts: number[] = [];
  const publisher = new FakePublisher(type, [destination], async () => {
    starts.push(performance.now());
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { ok: true };
  });
  return { publisher, starts };
}

// One publisher per destination type: the fake publishers count what runs at each destination.
const router = fakeRouter({
  'slow.t': { destination: 'slow' },
  'fast.t': { destination: 'fast', destinationType: 'rabbitmq' },
});
/** The same routes as the claim filter reads them. */
const gateRoutes = [
  { topicPattern: 'slow.t', destination: 'slow' },
  { topicPattern: 'fast.t', destination: 'fast' },
];

describe('OutboxPoller with destinations.<name>.rateLimit', () => {
  it('never runs more than maxInFlight publishes to the destination, and the others use the rest of the slots', async () => {
    const slow = timedPublisher('slow', 30);
    const fast = timedPublisher('fast', 30, 'rabbitmq');
    h = pollerHarness({
      router,
      gateRoutes,
      publishers: [slow.publisher, fast.publisher],
      destinations: { slow: limited({ maxInFlight: 2 }), fast: { rateLimit: null } },
      config: { concurrency: 8 },
    });
    // The slow rows first in claim order: without the limit they would take every slot.
    await h.insert(...Array.from({ length: 24 }, (_, n) => ({ topic: 'slow.t', payload: { n } })));
    await h.insert(...Array.from({ length: 24 }, (_, n) => ({ topic: 'fast.t', payload: { n } })));
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 48, 15_000, 'every row sent');

    expect(slow.publisher.maxInFlight).toBe(2);
    expect(fast.publisher.maxInFlight).toBeGreaterThan(2);
    // Rows of the unlimited destination did not queue behind the limited ones: all of them were
    // sent while slow rows were still waiting.
    const lastFast = Math.max(...fast.starts);
    expect(slow.starts.filter((t) => t > lastFast).length).toBeGreaterThan(0);
    expect(h.store.byState('sent').every((row) => row.attempt === 0)).toBe(true);
  });

  it('starts no more than burst + perSecond × t publishes over any span t', async () => {
    const slow = timedPublisher('slow', 1);
    h = pollerHarness({
      router,
      gateRoutes,
      publishers: [slow.publisher],
      destinations: { slow: limited({ perSecond: 100, burst: 5 }) },
    });
    await h.insert(...Array.from({ length: 60 }, (_, n) => ({ topic: 'slow.t', payload: { n } })));
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 60, 15_000, 'every row sent');

    const starts = slow.starts;
    expect(starts).toHaveLength(60);
    // Every span between two starts: the count of starts in it is bounded by the bucket. The
    // bound is an upper one only: a loaded machine can make the run slower, never faster.
    for (let i = 0; i < starts.length; i++) {
      for (let j = i + 1; j < starts.length; j++) {
        const span = starts[j]! - starts[i]!;
        // +1 ms: the publisher's clock reading comes after the dispatcher's.
        expect(j - i + 1).toBeLessThanOrEqual(5 + (100 * (span + 1)) / 1000 + 1e-9);
      }
    }
  });

  it('holds no more rows than the destination sends within half the lease, and hands the rest back unattempted', async () => {
    const slow = timedPublisher('slow', 1);
    h = pollerHarness({
      router,
      gateRoutes,
      publishers: [slow.publisher],
      // 1 token + 2/s × 2 s (half a 4 s lease) = 5 rows at most.
      destinations: { slow: limited({ perSecond: 2, burst: 1 }) },
      config: { claimTimeoutMs: 4_000 },
    });
    await h.insert(...Array.from({ length: 20 }, (_, n) => ({ topic: 'slow.t', payload: { n } })));
    let most = 0;
    const watch = setInterval(() => {
      most = Math.max(most, h!.store.byState('processing').length);
    }, 2);
    h.poller.start();
    try {
      await until(() => h!.store.byState('sent').length >= 4, 10_000, 'four rows sent');
    } finally {
      clearInterval(watch);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(5);
    // The rows handed back are pending as they were: no attempt, no lease.
    for (const row of h.store.byState('pending')) {
      expect(row.attempt).toBe(0);
      expect(row.claimedAt).toBeNull();
    }
    expect(h.store.calls.release.length).toBeGreaterThan(0);
  });

  it('reports the destinations without capacity, and none without a rateLimit', async () => {
    h = pollerHarness({ router, destinations: { slow: { rateLimit: null } } });
    expect(h.poller.blockedDestinations()).toEqual([]);
    await h.poller.close();
    const slow = timedPublisher('slow', 200);
    h = pollerHarness({
      router,
      gateRoutes,
      publishers: [slow.publisher],
      destinations: { slow: limited({ maxInFlight: 1 }) },
    });
    await h.insert(...Array.from({ length: 5 }, (_, n) => ({ topic: 'slow.t', payload: { n } })));
    h.poller.start();
    // maxInFlight 1: two held (one publishing, one ready); more than one held blocks the claim.
    await until(() => h!.poller.blockedDestinations().length === 1, 5_000, 'slow blocked');
    expect(h.poller.blockedDestinations()).toEqual(['slow']);
  });
});

describe('the claim with a rate-limited destination', () => {
  it('passes over the rows of a destination without capacity: they stay pending, untouched, while others are claimed', async () => {
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const slow = new FakePublisher('http', ['slow'], async () => {
      await answered;
      return { ok: true };
    });
    const fast = timedPublisher('fast', 1, 'rabbitmq');
    h = pollerHarness({
      router,
      gateRoutes,
      publishers: [slow, fast.publisher],
      // maxInFlight 1 holds 2 rows (one publishing, one ready) and is blocked past 1.
      destinations: { slow: limited({ maxInFlight: 1 }) },
    });
    await h.insert(...Array.from({ length: 10 }, (_, n) => ({ topic: 'slow.t', payload: { n } })));
    h.poller.start();
    await until(() => slow.requests.length === 1, 5_000, 'the first slow publish');
    await until(() => h!.store.byState('pending').length === 8, 5_000, 'the rest handed back');
    const waiting = new Map(h.store.byState('pending').map((row) => [row.id, row.updatedAt]));
    expect(h.poller.blockedDestinations()).toEqual(['slow']);

    const claimsBefore = h.store.calls.claim.length;
    await h.insert(...Array.from({ length: 30 }, (_, n) => ({ topic: 'fast.t', payload: { n } })));
    h.poller.wake();
    await until(
      () => h!.store.byState('sent').filter((row) => row.topic === 'fast.t').length === 30,
      10_000,
      'every fast row sent',
    );
    expect(h.store.calls.claim.length).toBeGreaterThan(claimsBefore);
    // The slow rows behind the two held were never claimed again while it was blocked.
    for (const [id, updatedAt] of waiting) {
      const row = h.store.row(id);
      expect(row.state).toBe('pending');
      expect(row.updatedAt).toBe(updatedAt);
      expect(row.attempt).toBe(0);
    }
    expect(slow.requests).toHaveLength(1);

    answer();
    await until(() => h!.store.byState('sent').length === 40, 10_000, 'every row sent');
    expect(slow.maxInFlight).toBe(1);
  });
});
