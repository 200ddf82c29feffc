import { describe, expect, it } from 'vitest';
import { MAX_RETRY_DELAY_MS, retryDelayMs } from './backoff.js';

const lowest = () => 0;
const highest = () => 0.999999;

describe('retryDelayMs', () => {
  it.each([
    [0, 1000],
    [1, 2000],
    [2, 4000],
    [3, 8000],
    [4, 16000],
  ])('attempt %i waits %i ms plus up to 25 %% jitter', (attempt, nominal) => {
    expect(retryDelayMs(attempt, 1000, lowest)).toBe(nominal);
    expect(retryDelayMs(attempt, 1000, highest)).toBe(nominal + nominal / 4);
  });

  it('draws jitter within its bounds', () => {
    for (let i = 0; i < 1000; i++) {
      const delay = retryDelayMs(2, 1000);
      expect(Number.isInteger(delay)).toBe(true);
      expect(delay).toBeGreaterThanOrEqual(4000);
      expect(delay).toBeLessThanOrEqual(5000);
    }
  });

  it('keeps at least one millisecond of jitter for tiny delays', () => {
    expect(retryDelayMs(0, 1, highest)).toBe(2);
    expect(retryDelayMs(0, 0, highest)).toBe(1);
    expect(retryDelayMs(0, 0, lowest)).toBe(0);
  });

  it('never exceeds the bound even if random returns 1', () => {
    expect(retryDelayMs(0, 1000, () => 1)).toBe(1250);
  });

  it('caps the delay at 60 s', () => {
    expect(MAX_RETRY_DELAY_MS).toBe(60_000);
    expect(retryDelayMs(5, 1000, lowest)).toBe(32_000);
    expect(retryDelayMs(5, 1000, highest)).toBe(40_000);
    expect(retryDelayMs(6, 1000, lowest)).toBe(60_000);
    expect(retryDelayMs(5, 2000, highest)).toBe(60_000);
  });

  it('stops doubling after attempt 20', () => {
    expect(retryDelayMs(20, 0.01, lowest)).toBeCloseTo(0.01 * 2 ** 20, 5);
    expect(retryDelayMs(21, 0.01, lowest)).toBeCloseTo(0.01 * 2 ** 20, 5);
    expect(retryDelayMs(1000, 0.01, lowest)).toBeCloseTo(0.01 * 2 ** 20, 5);
    expect(retryDelayMs(1000, 1000, highest)).toBe(60_000);
    expect(Number.isFinite(retryDelayMs(Number.MAX_SAFE_INTEGER, 1000))).toBe(true);
  });

  it('treats a negative attempt as the first', () => {
    expect(retryDelayMs(-3, 1000, lowest)).toBe(1000);
  });
});
