import { describe, expect, it } from 'vitest';
import { DoublingBackoff } from './doubling-backoff.js';

describe('DoublingBackoff', () => {
  it('doubles once per round of failures and stops at the cap', () => {
    const backoff = new DoublingBackoff(3, 100, 1_000);
    const waits = Array.from({ length: 15 }, () => backoff.next());
    expect(waits).toEqual([
      100, 100, 100, 200, 200, 200, 400, 400, 400, 800, 800, 800, 1_000, 1_000, 1_000,
    ]);
  });

  it('starts again from the base after a reset', () => {
    const backoff = new DoublingBackoff(1, 250, 5_000);
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([250, 500, 1_000]);
    backoff.reset();
    expect(backoff.next()).toBe(250);
  });

  it('treats a round below one as one failure a round', () => {
    const backoff = new DoublingBackoff(0, 10, 10_000);
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([10, 20, 40]);
  });

  it('never overflows however long the outage lasts', () => {
    const backoff = new DoublingBackoff(1, 100, 5_000);
    for (let i = 0; i < 10_000; i++) backoff.next();
    expect(backoff.next()).toBe(5_000);
  });
});
