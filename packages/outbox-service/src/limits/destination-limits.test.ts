import { describe, expect, it } from 'vitest';
import type { DestinationRateLimit } from '@queuebox/core';
import { DestinationLimits } from './destination-limits.js';

function clock() {
  let now = 0;
  return { nowMs: () => now, advance: (ms: number) => (now += ms) };
}

const limit = (rateLimit: Partial<DestinationRateLimit> | null) => ({
  rateLimit:
    rateLimit === null ? null : { perSecond: null, burst: null, maxInFlight: null, ...rateLimit },
});

function build(
  destinations: Record<string, ReturnType<typeof limit>>,
  options: { leaseMs?: number; maxHeld?: number } = {},
) {
  const time = clock();
  const limits = DestinationLimits.fromConfig(destinations, {
    leaseMs: options.leaseMs ?? 30_000,
    maxHeld: options.maxHeld ?? 800,
    nowMs: time.nowMs,
  });
  return { limits, time };
}

describe('DestinationLimits', () => {
  it('is not there at all without a rateLimit (the poller keeps its own path)', () => {
    expect(build({ a: limit(null), b: { rateLimit: undefined } as never }).limits).toBeNull();
  });

  it('starts a row only with a token, and says when the next one is due', () => {
    const { limits, time } = build({ slow: limit({ perSecond: 10, burst: 2 }) });
    const l = limits!;
    expect(l.limits('slow')).toBe(true);
    expect(l.limits('other')).toBe(false);
    for (let i = 0; i < 2; i++) {
      expect(l.canStart('slow')).toBe(true);
      l.started('slow');
      l.finished('slow', 5);
    }
    expect(l.canStart('slow')).toBe(false);
    expect(l.msUntilStart('slow')).toBeCloseTo(100);
    time.advance(100);
    expect(l.canStart('slow')).toBe(true);
    // A destination without a limit is never held back.
    expect(l.canStart('other')).toBe(true);
  });

  it('never lets more than maxInFlight publishes run; the end of one frees its slot', () => {
    const { limits } = build({ d: limit({ maxInFlight: 2 }) });
    const l = limits!;
    l.started('d');
    l.started('d');
    expect(l.canStart('d')).toBe(false);
    expect(l.msUntilStart('d')).toBe(Infinity);
    l.finished('d', 10);
    expect(l.canStart('d')).toBe(true);
    expect(l.msUntilStart('d')).toBe(0);
  });

  it('with both, needs a token and a free slot', () => {
    const { limits, time } = build({ d: limit({ perSecond: 1, burst: 5, maxInFlight: 1 }) });
    const l = limits!;
    l.started('d');
    expect(l.canStart('d')).toBe(false);
    l.finished('d', 10);
    expect(l.canStart('d')).toBe(true);
    for (let i = 0; i < 4; i++) {
      l.started('d');
      l.finished('d', 10);
    }
    expect(l.canStart('d')).toBe(false);
    time.advance(1000);
    expect(l.canStart('d')).toBe(true);
  });

  it('holds at most what the rate sends within half the lease, and hands the rest back', () => {
    // 2 tokens now + 10/s × 15 s = 152 rows.
    const { limits } = build({ d: limit({ perSecond: 10, burst: 2 }) }, { leaseMs: 30_000 });
    const l = limits!;
    expect(l.capacity('d')).toBe(152);
    let admitted = 0;
    for (let i = 0; i < 400; i++) if (l.admit('d')) admitted++;
    expect(admitted).toBe(152);
    expect(l.held('d')).toBe(152);
    // Rows of a destination without a limit are always kept.
    expect(l.admit('other')).toBe(true);
  });

  it('never holds more than maxHeld, and at least one row of a very slow destination', () => {
    expect(build({ d: limit({ perSecond: 1000 }) }, { maxHeld: 800 }).limits!.capacity('d')).toBe(
      800,
    );
    // One every 100 s with a 30 s lease: still one row at a time, or it would never go.
    expect(
      build({ d: limit({ perSecond: 0.01, burst: 1 }) }, { leaseMs: 30_000 }).limits!.capacity('d'),
    ).toBe(1);
  });

  it('with maxInFlight alone holds twice maxInFlight until a publish is timed, then what the slots send within half the lease', () => {
    const { limits } = build({ d: limit({ maxInFlight: 3 }) }, { leaseMs: 2_000, maxHeld: 800 });
    const l = limits!;
    expect(l.capacity('d')).toBe(6);
    l.started('d');
    l.finished('d', 100);
    // 3 slots × 1000 ms / 100 ms.
    expect(l.capacity('d')).toBe(30);
    // A receiver that answers slower than the horizon still gets 2 × maxInFlight.
    for (let i = 0; i < 50; i++) {
      l.started('d');
      l.finished('d', 60_000);
    }
    expect(l.capacity('d')).toBe(6);
  });

  it('blocks a destination for the claim past half its capacity and says when it opens again', () => {
    const { limits } = build({ d: limit({ maxInFlight: 2 }), e: limit({ maxInFlight: 5 }) });
    const l = limits!;
    expect(l.blocked()).toEqual([]);
    // Capacity 4: open up to 2 held.
    for (let i = 0; i < 3; i++) l.admit('d');
    expect(l.blocked()).toEqual(['d']);
    expect(l.release('d')).toBe(true);
    expect(l.blocked()).toEqual([]);
    expect(l.release('d')).toBe(false);
  });

  it('blocks a rate-limited destination whose held rows already fill half of what it can send', () => {
    const { limits, time } = build({ d: limit({ perSecond: 1, burst: 1 }) }, { leaseMs: 10_000 });
    const l = limits!;
    // 1 token + 1/s × 5 s = 6 rows; open while at most 3 are held.
    expect(l.capacity('d')).toBe(6);
    for (let i = 0; i < 4; i++) l.admit('d');
    expect(l.blocked()).toEqual(['d']);
    l.started('d');
    l.finished('d', 1);
    // The token is spent: capacity 5, 4 held.
    expect(l.blocked()).toEqual(['d']);
    l.release('d');
    // 3 held of 5: still more than half.
    expect(l.blocked()).toEqual(['d']);
    time.advance(1000);
    // 1 token again: capacity 6, 3 held.
    expect(l.blocked()).toEqual([]);
  });
});
