import { describe, expect, it } from 'vitest';
import { createMemoryMetrics, MemoryCounter, MemoryGauge, MemoryTimer } from './memory-metrics.js';

describe('memory metrics', () => {
  it('keeps one series per label set, in any label order', () => {
    const counter = new MemoryCounter();
    counter.inc({ destination: 'a', outcome: 'success' });
    counter.inc({ outcome: 'success', destination: 'a' }, 2);
    counter.inc({ destination: 'b', outcome: 'success' });
    expect(counter.value({ destination: 'a', outcome: 'success' })).toBe(3);
    expect(counter.value({ destination: 'b', outcome: 'success' })).toBe(1);
    expect(counter.value({ destination: 'c', outcome: 'success' })).toBe(0);
    expect(counter.has({ destination: 'c', outcome: 'success' })).toBe(false);
    expect(counter.series()).toEqual([
      { labels: { destination: 'a', outcome: 'success' }, value: 3 },
      { labels: { destination: 'b', outcome: 'success' }, value: 1 },
    ]);
  });

  it('counts label-less series and refuses to count down', () => {
    const counter = new MemoryCounter();
    counter.inc();
    counter.inc(4);
    expect(counter.value()).toBe(5);
    expect(() => counter.inc(-1)).toThrow('only goes up');
    expect(() => counter.inc({ table: 'outbox' }, -1)).toThrow('only goes up');
    counter.inc({ table: 'outbox' }, 0);
    expect(counter.has({ table: 'outbox' })).toBe(true);
  });

  it('sets, raises and lowers gauges', () => {
    const gauge = new MemoryGauge();
    gauge.set(7);
    gauge.inc({ destination: 'd' });
    gauge.inc({ destination: 'd' });
    gauge.dec({ destination: 'd' });
    gauge.set({ table: 'inbox' }, 12.5);
    expect(gauge.value()).toBe(7);
    expect(gauge.value({ destination: 'd' })).toBe(1);
    expect(gauge.value({ table: 'inbox' })).toBe(12.5);
  });

  it('records timer count, sum and max per series', async () => {
    const timer = new MemoryTimer();
    timer.observe(0.5, { destination_type: 'http' });
    timer.observe(1.5, { destination_type: 'http' });
    const stop = timer.startTimer();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const elapsed = stop();
    expect(timer.count({ destination_type: 'http' })).toBe(2);
    expect(timer.sum({ destination_type: 'http' })).toBe(2);
    expect(timer.max({ destination_type: 'http' })).toBe(1.5);
    expect(elapsed).toBeGreaterThanOrEqual(0.015);
    expect(timer.count()).toBe(1);
    expect(timer.sum()).toBe(elapsed);
  });

  it('shares one handle where two bundles report to one family', () => {
    const metrics = createMemoryMetrics();
    metrics.outbox.claimsLost.inc({ component: 'outbox' });
    metrics.relay.claimsLost.inc({ component: 'inbox' });
    metrics.relay.messages.inc({ status: 'forwarded' });
    metrics.inbox.messages.inc({ status: 'new' });
    expect(metrics.relay.claimsLost.value({ component: 'outbox' })).toBe(1);
    expect(metrics.outbox.claimsLost.value({ component: 'inbox' })).toBe(1);
    expect(metrics.inbox.messages.value({ status: 'forwarded' })).toBe(1);
    expect(metrics.relay.messages.value({ status: 'new' })).toBe(1);
  });
});
