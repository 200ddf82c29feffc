import { describe, expect, it } from 'vitest';
import { TimeWindowMax } from './time-window-max.js';

describe('TimeWindowMax', () => {
  it('keeps the largest sample of the window and forgets it one slot at a time', () => {
    let now = 0;
    const max = new TimeWindowMax(() => now, 120_000, 3);
    max.record(5);
    now = 30_000;
    max.record(3);
    expect(max.poll()).toBe(5);
    // The first rotation (at 40 s) resets one slot; the other slots still hold 5.
    now = 45_000;
    expect(max.poll()).toBe(5);
    now = 85_000;
    expect(max.poll()).toBe(5);
    // Each rotation resets one slot; after three rotations both samples are gone.
    now = 125_000;
    expect(max.poll()).toBe(0);
  });

  it('resets everything when a whole expiry passed without a read', () => {
    let now = 0;
    const max = new TimeWindowMax(() => now, 1_000, 4);
    max.record(7);
    now = 10_000;
    expect(max.poll()).toBe(0);
    max.record(2);
    expect(max.poll()).toBe(2);
  });
});
