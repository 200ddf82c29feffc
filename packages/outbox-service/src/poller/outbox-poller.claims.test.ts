import { afterEach, describe, expect, it } from 'vitest';
import { publishFailed, type PublishOutcome, type PublishRequest } from '@queuebox/core';
import { delay, FakePublisher, until } from '@queuebox/testing';
import { pollerHarness, type PollerHarness } from '../../test/poller-harness.js';
import { maxClaimedUndelivered, maxClaimRows } from './outbox-poller.js';

let h: PollerHarness | undefined;
afterEach(async () => {
  await h?.poller.close();
  h = undefined;
});

/** Starts `h` on one row whose claim is taken away while it is published; the publish then answers `outcome`. */
async function startClaimLostInPublish(h: PollerHarness, outcome: PublishOutcome): Promise<string> {
  h.publisher.behaviour = (request) => {
    h.store.stealClaim(request.message.id);
    return outcome;
  };
  const [id] = await h.insert({ topic: 't', payload: {} });
  h.poller.start();
  return id!;
}

/**
 * Makes every claim of `h` wait `ms` before it runs and counts how many are on their way at once;
 * `ended` runs as each claim ends (a test's own sampling of the rows held).
 */
function slowClaims(
  h: PollerHarness,
  ms: number,
  ended: () => void = () => undefined,
): { readonly maxAtOnce: number } {
  const store = h.store;
  const claim = store.claim.bind(store);
  let running = 0;
  const seen = { maxAtOnce: 0 };
  store.claim = async (limit, leaseMs) => {
    seen.maxAtOnce = Math.max(seen.maxAtOnce, ++running);
    try {
      await delay(ms);
      return await claim(limit, leaseMs);
    } finally {
      running--;
      ended();
    }
  };
  return seen;
}

describe('OutboxPoller claims, fences and leases (spec §4.2, §4.4)', () => {
  it('logs the duplicate ERROR and writes nothing more when the claim is lost after the publish', async () => {
    h = pollerHarness();
    const id = await startClaimLostInPublish(h, { ok: true });
    await until(() => h!.logger.messages('error').length === 1, 5_000, 'the duplicate ERROR');
    await until(() => h!.poller.inFlight === 0);
    expect(h.logger.messages('error')).toEqual([
      `Message ${id} was published, but the claim was already lost, so the destination receives a duplicate. ` +
        `Raise 'outbox.claimTimeoutMs' above the slowest publish.`,
    ]);
    expect(h.store.row(id)).toMatchObject({ state: 'processing', attempt: 0, lastError: null });
    // One terminal write was attempted, and no second one (no retry, no dead) followed it.
    expect(h.store.calls.complete.reduce((a, b) => a + b, 0)).toBe(1);
    expect(h.metrics.claimsLost.value({ component: 'outbox' })).toBe(1);
    expect(h.metrics.messages.value({ status: 'sent' })).toBe(0);
  });

  it('logs the claim-lost WARN when the retry write loses its fence', async () => {
    h = pollerHarness();
    const id = await startClaimLostInPublish(h, {
      ok: false,
      error: publishFailed('HTTP 502: Bad Gateway'),
    });
    await until(
      () => h!.logger.messages('warn').length === 2,
      5_000,
      'retry WARN and claim-lost WARN',
    );
    expect(h.logger.messages('warn')[1]).toBe(
      `The claim on message ${id} was lost, so QueueBox did not schedule a retry. Another replica or the reclaim ` +
        `step delivers it. Raise 'outbox.claimTimeoutMs' above the slowest publish.`,
    );
    await until(() => h!.poller.inFlight === 0);
    expect(h.store.row(id)).toMatchObject({ state: 'processing', attempt: 0 });
    expect(h.metrics.claimsLost.value({ component: 'outbox' })).toBe(1);
    expect(h.metrics.messages.value({ status: 'failed' })).toBe(0);
  });

  it('aborts a running publish when a lease renewal finds the claim gone', async () => {
    const publisher = new FakePublisher();
    let first: PublishRequest | undefined;
    publisher.behaviour = async (request) => {
      first ??= request;
      if (first === request) await delay(10_000, request.signal);
      return { ok: true };
    };
    // Renewal every 100 ms.
    h = pollerHarness({ publishers: [publisher], config: { claimTimeoutMs: 300 } });
    const [id] = await h.insert({ topic: 't', payload: {} });
    h.poller.start();
    await until(() => first !== undefined);
    h.store.stealClaim(id!);
    await until(() => first!.signal.aborted, 2_000, 'the publish signal to abort');
    expect((first!.signal.reason as Error).message).toBe('Claim ownership lost');
    await until(() => h!.logger.messages('warn').length > 0);
    expect(h.logger.messages('warn')[0]).toBe(
      `The claim on message ${id} was lost, so QueueBox did not finish delivering it. Another replica or the ` +
        `reclaim step delivers it. Raise 'outbox.claimTimeoutMs' above the slowest publish.`,
    );
    expect(h.metrics.claimsLost.value({ component: 'outbox' })).toBe(1);
    // The cancelled publish is neither a destination failure nor an attempt.
    expect(h.destinationCount('failure')).toBe(0);
    expect(h.store.row(id!).attempt).toBe(0);
  });

  it('renews every held claim in one batched call per interval', async () => {
    const publisher = new FakePublisher('http', 'all', (request) =>
      delay(400, request.signal).then(() => ({ ok: true })),
    );
    h = pollerHarness({
      publishers: [publisher],
      config: { claimTimeoutMs: 300, concurrency: 4, batchSize: 10 },
    });
    await h.insert(...Array.from({ length: 10 }, () => ({ topic: 't', payload: {} })));
    h.poller.start();
    await until(() => h!.store.calls.renew.length >= 2, 2_000, 'two renewals');
    // 4 publishing + 6 buffered, all under one statement.
    expect(h.store.calls.renew[0]).toBe(10);
    expect(h.logger.messages('warn')).toEqual([]);
  });

  it('writes completions in groups: many messages, far fewer complete calls', async () => {
    h = pollerHarness();
    h.store.latencyMs = 5;
    await h.insert(...Array.from({ length: 200 }, (_, i) => ({ topic: 't', payload: { i } })));
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 200, 10_000, 'all sent');
    const sizes = h.store.calls.complete;
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(200);
    expect(sizes.length).toBeLessThan(200 / 4);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
  });

  it('claims whole batches, growing under load up to 4 × batchSize, one claim at a time, and holds at most a double buffer', async () => {
    // Rows whose publish answered: still `processing` until their grouped terminal write lands,
    // but delivered. How many wait so depends on how late the write's timer fires (the load),
    // so the strand bound is checked on the others, the claimed-but-undelivered rows.
    const published = new Set<string>();
    const publisher = new FakePublisher('http', 'all', (request) =>
      delay(1).then(() => {
        published.add(request.message.id);
        return { ok: true };
      }),
    );
    const config = { batchSize: 20, concurrency: 2 };
    h = pollerHarness({ publishers: [publisher], config });
    const store = h.store;
    let maxHeld = 0;
    let maxUndelivered = 0;
    const claims = slowClaims(h, 3, () => {
      const processing = store.byState('processing');
      maxHeld = Math.max(maxHeld, processing.length);
      maxUndelivered = Math.max(
        maxUndelivered,
        processing.filter((row) => !published.has(row.id)).length,
      );
    });
    await h.insert(...Array.from({ length: 200 }, () => ({ topic: 't', payload: {} })));
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 200, 10_000, 'all sent');
    const sizes = h.store.calls.claim;
    expect(sizes[0]).toBe(20);
    for (const size of sizes) {
      expect(size).toBeGreaterThanOrEqual(20);
      expect(size).toBeLessThanOrEqual(maxClaimRows({ batchSize: 20 }));
    }
    // Two slots kept busy by a backlog of 200: the claims grew past one batch.
    expect(Math.max(...sizes)).toBeGreaterThan(20);
    expect(claims.maxAtOnce).toBe(1);
    // Undelivered: 2 × maxClaimRows unstarted + concurrency publishing (the strand bound).
    expect(maxUndelivered).toBeLessThanOrEqual(maxClaimedUndelivered(config));
    // Held in all: that, plus the delivered rows whose write is on its way, which pause claims
    // past the same number.
    expect(maxHeld).toBeLessThanOrEqual(2 * maxClaimedUndelivered(config));
  });

  it('grows the claims when they, not the destination, are the bound: a batch lasts less than a claim round trip', async () => {
    // Publishes answer at once and a claim takes 15 ms: a batch is worked off long before the
    // next claim returns, so the slots are mostly idle when it does, and only larger claims can
    // deliver more.
    const publisher = new FakePublisher('http', 'all', () => Promise.resolve({ ok: true }));
    h = pollerHarness({ publishers: [publisher], config: { batchSize: 20, concurrency: 8 } });
    const claims = slowClaims(h, 15);
    await h.insert(...Array.from({ length: 400 }, () => ({ topic: 't', payload: {} })));
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 400, 10_000, 'all sent');
    const sizes = h.store.calls.claim;
    expect(sizes.slice(0, 3)).toEqual([20, 40, 80]);
    expect(Math.max(...sizes)).toBe(maxClaimRows({ batchSize: 20 }));
    expect(claims.maxAtOnce).toBe(1);
  });

  it('holds at most 2 × maxClaimRows + concurrency rows claimed but undelivered (the crash strand bound)', async () => {
    // Publishes that never answer: every claimed row stays undelivered, so the poller claims
    // until the bound stops it and then claims nothing more.
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const publisher = new FakePublisher('http', 'all', () => blocked.then(() => ({ ok: true })));
    const config = { batchSize: 20, concurrency: 3, pollIntervalMs: 5 };
    h = pollerHarness({ publishers: [publisher], config });
    const store = h.store;
    slowClaims(h, 2);
    await h.insert(...Array.from({ length: 500 }, () => ({ topic: 't', payload: {} })));
    const bound = maxClaimedUndelivered(config);
    // 2 × (4 × 20) + 3.
    expect(bound).toBe(163);
    h.poller.start();
    await until(() => publisher.maxInFlight === 3, 5_000, 'every slot publishing');
    let maxHeld = 0;
    for (let i = 0; i < 40; i++) {
      await delay(5);
      maxHeld = Math.max(maxHeld, store.byState('processing').length);
    }
    // Claims grow while the slots stay busy and fill the buffer to within one claim of the
    // bound, never past it. A claim asks for its whole size or waits: never the rest of the
    // room (a grown claim sent whenever one batch fits came back one batch long).
    expect(maxHeld).toBeLessThanOrEqual(bound);
    expect(maxHeld).toBeGreaterThan(bound - maxClaimRows(config));
    for (const size of store.calls.claim) expect([20, 40, 80]).toContain(size);
    expect(Math.max(...store.calls.claim)).toBeGreaterThan(config.batchSize);
    expect(Math.max(...store.calls.claim)).toBeLessThanOrEqual(maxClaimRows(config));
    const claimsBefore = store.calls.claim.length;
    await delay(60);
    // Full: idle cycles claim nothing (no claim call at all while there is no room).
    expect(store.calls.claim.length).toBe(claimsBefore);
    expect(store.byState('processing').length).toBeLessThanOrEqual(bound);
    release();
    await until(() => store.byState('sent').length === 500, 10_000, 'all sent');
  });

  /**
   * 200 rows of 200 keys through batches of 20 and two slots, each claim slowed by `claimMs`;
   * returns when all are sent, with the claims' most at once.
   */
  async function sendKeyed(
    publish: () => Promise<PublishOutcome>,
    claimMs: number,
  ): Promise<{ readonly maxAtOnce: number }> {
    const publisher = new FakePublisher('http', 'all', publish);
    h = pollerHarness({ publishers: [publisher], config: { batchSize: 20, concurrency: 2 } });
    const claims = slowClaims(h, claimMs);
    await h.insert(
      ...Array.from({ length: 200 }, (_, i) => ({ topic: 't', key: `k${i}`, payload: {} })),
    );
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 200, 10_000, 'all sent');
    return claims;
  }

  it('keeps whole batches of batchSize while the claims hold keyed rows', async () => {
    const claims = await sendKeyed(() => delay(1).then(() => ({ ok: true })), 0);
    expect(new Set(h!.store.calls.claim)).toEqual(new Set([20]));
    expect(claims.maxAtOnce).toBeLessThanOrEqual(2);
  });

  it('sends a second keyed claim while a full one is on its way once the buffer has room', async () => {
    // Claims take 50 ms, publishes answer at once: the buffer runs dry while a claim is on its
    // way, and after a full claim of keyed rows the poller sends the next one beside it.
    const claims = await sendKeyed(() => Promise.resolve({ ok: true }), 50);
    expect(new Set(h!.store.calls.claim)).toEqual(new Set([20]));
    expect(claims.maxAtOnce).toBe(2);
  });

  it('costs one claim per poll interval when idle', async () => {
    h = pollerHarness({ config: { pollIntervalMs: 50 } });
    const started = performance.now();
    h.poller.start();
    // It keeps polling; on a busy machine the timers fire late, so fewer intervals pass.
    await until(() => h!.store.calls.claim.length >= 4, 5_000, 'four idle claims');
    // A timer may fire up to 1 ms before performance.now() shows its delay passed (libuv keeps
    // time in whole milliseconds), so an interval counts as 49 ms here.
    const intervals = (performance.now() - started) / 49;
    // And never more than one claim per interval (plus the first, at start).
    expect(h.store.calls.claim.length).toBeLessThanOrEqual(Math.floor(intervals) + 1);
  });

  it('never runs more publishes at once than outbox.concurrency', async () => {
    const publisher = new FakePublisher('http', 'all', () => delay(3).then(() => ({ ok: true })));
    h = pollerHarness({ publishers: [publisher], config: { concurrency: 4, batchSize: 20 } });
    await h.insert(...Array.from({ length: 120 }, () => ({ topic: 't', payload: {} })));
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 120, 10_000, 'all sent');
    expect(publisher.maxInFlight).toBe(4);
  });

  it('delivers each key in insert order, one row of a key at a time, across retries', async () => {
    const publisher = new FakePublisher();
    const inFlightKeys = new Set<string>();
    const delivered = new Map<string, number[]>();
    let overlap = false;
    publisher.behaviour = async (request) => {
      const key = request.message.key!;
      if (inFlightKeys.has(key)) overlap = true;
      inFlightKeys.add(key);
      await delay(1);
      inFlightKeys.delete(key);
      const n = (request.message.payload.value as { n: number }).n;
      // Every third row fails its first attempt and holds its key back while it waits.
      if (n % 3 === 0 && request.message.attempt === 0)
        return { ok: false, error: publishFailed('HTTP 500: Error') };
      delivered.set(key, [...(delivered.get(key) ?? []), n]);
      return { ok: true };
    };
    h = pollerHarness({
      publishers: [publisher],
      config: { retryBaseDelayMs: 1, concurrency: 8, batchSize: 10 },
    });
    const keys = ['a', 'b', 'c', 'd', 'e'];
    for (let n = 0; n < 12; n++) {
      await h.insert(...keys.map((key) => ({ topic: 't', key, payload: { n } })));
    }
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 60, 10_000, 'all sent');
    expect(overlap).toBe(false);
    for (const key of keys)
      expect(delivered.get(key)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });
});
