import { describe, expect, it } from 'vitest';
import { TokenBucket } from './rate-limiter.js';

describe('TokenBucket', () => {
  const clock = { ms: 0, now: () => new Date(clock.ms) };

  it('allows N requests, then refills all N once 60 s passed since the last refill', () => {
    clock.ms = 1_000_000;
    const bucket = new TokenBucket(3, clock);
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake()].every((d) => d.ok)).toBe(true);
    expect(bucket.tryTake()).toEqual({ ok: false, retryAfterSeconds: 60 });
    clock.ms += 59_001;
    expect(bucket.tryTake()).toEqual({ ok: false, retryAfterSeconds: 1 });
    clock.ms += 999;
    expect(bucket.tryTake()).toEqual({ ok: true });
    expect(bucket.tryTake()).toEqual({ ok: true });
    expect(bucket.tryTake()).toEqual({ ok: true });
    expect(bucket.tryTake().ok).toBe(false);
  });

  it('rounds Retry-After up to whole seconds', () => {
    clock.ms = 0;
    const bucket = new TokenBucket(1, clock);
    bucket.tryTake();
    clock.ms = 30_001;
    expect(bucket.tryTake()).toEqual({ ok: false, retryAfterSeconds: 30 });
    clock.ms = 29_999;
    expect(bucket.tryTake()).toEqual({ ok: false, retryAfterSeconds: 31 });
  });

  it('does not save up unused tokens beyond the capacity', () => {
    clock.ms = 0;
    const bucket = new TokenBucket(2, clock);
    clock.ms = 10 * 60_000;
    expect(bucket.tryTake().ok).toBe(true);
    expect(bucket.tryTake().ok).toBe(true);
    expect(bucket.tryTake().ok).toBe(false);
  });
});
