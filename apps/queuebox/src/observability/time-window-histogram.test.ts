import { describe, expect, it } from 'vitest';
import { TimeWindowHistogram } from './time-window-histogram.js';

const QS = [0.5, 0.95, 0.99];

describe('TimeWindowHistogram', () => {
  it('reports 0 for every quantile while the window is empty', () => {
    const histogram = new TimeWindowHistogram(() => 0, 120_000, 3);
    expect(histogram.quantiles(QS)).toEqual([0, 0, 0]);
  });

  it('reports a lone sample exactly', () => {
    const histogram = new TimeWindowHistogram(() => 0, 120_000, 3);
    histogram.record(0.25);
    expect(histogram.quantiles(QS)).toEqual([0.25, 0.25, 0.25]);
  });

  it('finds the quantiles of 1..10000 ms within 1 %', () => {
    const histogram = new TimeWindowHistogram(() => 0, 120_000, 3);
    // Shuffled, so order cannot help.
    const values = Array.from({ length: 10_000 }, (_, i) => (i + 1) / 1000);
    for (let i = values.length - 1; i > 0; i--) {
      const j = (i * 7919) % (i + 1);
      [values[i], values[j]] = [values[j]!, values[i]!];
    }
    for (const v of values) histogram.record(v);
    const [p50, p95, p99] = histogram.quantiles(QS);
    expect(Math.abs(p50! - 5) / 5).toBeLessThan(0.01);
    expect(Math.abs(p95! - 9.5) / 9.5).toBeLessThan(0.01);
    expect(Math.abs(p99! - 9.9) / 9.9).toBeLessThan(0.01);
  });

  it('forgets samples one slot at a time and all of them after the expiry', () => {
    let now = 0;
    const histogram = new TimeWindowHistogram(() => now, 120_000, 3);
    histogram.record(8);
    now = 50_000; // one rotation: the 8 s sample is in an older, still live slot
    histogram.record(2);
    expect(histogram.quantiles([0.99])).toEqual([8]);
    now = 125_000; // three rotations since the first sample: its slot was cleared
    expect(histogram.quantiles([0.5])).toEqual([2]);
    now = 300_000;
    expect(histogram.quantiles([0.5])).toEqual([0]);
  });

  it('keeps tiny and huge samples in the end buckets without losing the count', () => {
    const histogram = new TimeWindowHistogram(() => 0, 120_000, 3);
    histogram.record(0);
    histogram.record(1e-9);
    histogram.record(1e9);
    const [p50, , p99] = histogram.quantiles(QS);
    expect(p50).toBeLessThanOrEqual(1e-6);
    expect(p99).toBe(1e9);
  });
});
