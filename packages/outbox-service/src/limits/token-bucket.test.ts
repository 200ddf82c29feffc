import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

function clock(start = 1_000) {
  let now = start;
  return { nowMs: () => now, advance: (ms: number) => (now += ms) };
}

function drain(bucket: TokenBucket): number {
  let n = 0;
  while (bucket.tryTake()) n++;
  return n;
}

describe('TokenBucket', () => {
  it('starts full with the burst and refuses once it is empty', () => {
    const time = clock();
    const bucket = new TokenBucket(10, 3, time.nowMs);
    expect(drain(bucket)).toBe(3);
    expect(bucket.tryTake()).toBe(false);
  });

  it('gains perSecond tokens a second, continuously, a fraction at a time', () => {
    const time = clock();
    const bucket = new TokenBucket(10, 5, time.nowMs);
    drain(bucket);
    time.advance(50);
    expect(bucket.tokens).toBeCloseTo(0.5);
    expect(bucket.tryTake()).toBe(false);
    expect(bucket.msUntilToken()).toBeCloseTo(50);
    time.advance(50);
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.msUntilToken()).toBeCloseTo(100);
  });

  it('never holds more than the burst however long it waits', () => {
    const time = clock();
    const bucket = new TokenBucket(100, 4, time.nowMs);
    drain(bucket);
    time.advance(60_000);
    expect(drain(bucket)).toBe(4);
  });

  it('grants at most burst + perSecond × t over any span, and exactly the rate when asked often', () => {
    const time = clock();
    const bucket = new TokenBucket(50, 5, time.nowMs);
    // Asked every 3 ms for 10 s (a caller faster than the rate): 5 + 50 × 10 grants.
    let granted = 0;
    for (let t = 0; t <= 10_000; t += 3) {
      if (bucket.tryTake()) granted++;
      time.advance(3);
    }
    expect(granted).toBeGreaterThanOrEqual(5 + 500 - 1);
    expect(granted).toBeLessThanOrEqual(5 + 500 + 1);
  });

  it('loses no token to a caller a little late, up to what the burst holds', () => {
    const time = clock();
    const bucket = new TokenBucket(50, 5, time.nowMs);
    drain(bucket);
    // Each look comes 7 ms after the token was due (27 ms apart instead of 20): tokens pile up
    // in the bucket instead of being lost, and each look takes what is there.
    let granted = 0;
    for (let i = 0; i < 370; i++) {
      time.advance(27);
      while (bucket.tryTake()) granted++;
    }
    // 370 × 27 ms = 9.99 s: 499.5 tokens due, none lost.
    expect(granted).toBe(499);
  });

  it('says how many tokens it can grant within a span, from what it holds now', () => {
    const time = clock();
    const bucket = new TokenBucket(2, 3, time.nowMs);
    expect(bucket.grantableWithin(10_000)).toBeCloseTo(23);
    drain(bucket);
    expect(bucket.grantableWithin(10_000)).toBeCloseTo(20);
  });

  it('refuses a rate or a burst that could never grant', () => {
    expect(() => new TokenBucket(0, 1, () => 0)).toThrow(RangeError);
    expect(() => new TokenBucket(1, 0, () => 0)).toThrow(RangeError);
  });

  it('does not run backwards when the clock does', () => {
    const time = clock();
    const bucket = new TokenBucket(10, 2, time.nowMs);
    drain(bucket);
    time.advance(-500);
    expect(bucket.tokens).toBe(0);
    time.advance(600);
    expect(bucket.tokens).toBeCloseTo(1);
  });
});
