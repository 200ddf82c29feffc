import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { deferredCounter, deferredGauge } from './deferred-series.js';

const lines = async (registry: Registry, name: string): Promise<string[]> =>
  (await registry.metrics()).split('\n').filter((line) => line.startsWith(`${name}{`));

describe('deferred series', () => {
  it('counts per label set and shows the running total at every scrape', async () => {
    const registry = new Registry();
    const counter = deferredCounter({
      name: 'qb_test_total',
      help: 'test',
      labelNames: ['destination', 'outcome'],
      registers: [registry],
    });
    expect(await lines(registry, 'qb_test_total')).toEqual([]);
    counter.inc({ destination: 'a', outcome: 'success' });
    counter.inc({ destination: 'a', outcome: 'success' }, 2);
    counter.inc({ destination: 'a', outcome: 'failure' });
    // The key must not confuse ("a b", "c") with ("a", "b c").
    counter.inc({ destination: 'x\u0000y', outcome: 'z' });
    counter.inc({ destination: 'x', outcome: 'y\u0000z' });
    expect(await lines(registry, 'qb_test_total')).toEqual([
      'qb_test_total{destination="a",outcome="success"} 3',
      'qb_test_total{destination="a",outcome="failure"} 1',
      'qb_test_total{destination="x\u0000y",outcome="z"} 1',
      'qb_test_total{destination="x",outcome="y\u0000z"} 1',
    ]);
    counter.inc({ destination: 'a', outcome: 'success' });
    expect(await lines(registry, 'qb_test_total')).toContain(
      'qb_test_total{destination="a",outcome="success"} 4',
    );
    expect(await lines(registry, 'qb_test_total')).toContain(
      'qb_test_total{destination="a",outcome="failure"} 1',
    );
  });

  it('keeps a gauge through inc, dec and set', async () => {
    const registry = new Registry();
    const gauge = deferredGauge({
      name: 'qb_test_depth',
      help: 'test',
      labelNames: ['destination'],
      registers: [registry],
    });
    gauge.inc({ destination: 'a' });
    gauge.inc({ destination: 'a' }, 3);
    gauge.dec({ destination: 'a' });
    gauge.inc({ destination: 'b' });
    gauge.dec({ destination: 'b' });
    expect(await lines(registry, 'qb_test_depth')).toEqual([
      'qb_test_depth{destination="a"} 3',
      'qb_test_depth{destination="b"} 0',
    ]);
    gauge.set({ destination: 'a' }, 7);
    expect(await lines(registry, 'qb_test_depth')).toContain('qb_test_depth{destination="a"} 7');
  });

  it('resolves a child once; it counts into the same series and shows only once used', async () => {
    const registry = new Registry();
    const counter = deferredCounter({
      name: 'qb_child_total',
      help: 'test',
      labelNames: ['destination', 'outcome'],
      registers: [registry],
    });
    const gauge = deferredGauge({
      name: 'qb_child_depth',
      help: 'test',
      labelNames: ['destination'],
      registers: [registry],
    });
    const success = counter.child({ destination: 'a', outcome: 'success' });
    counter.child({ destination: 'a', outcome: 'failure' });
    const depth = gauge.child({ destination: 'a' });
    gauge.child({ destination: 'b' });
    expect(await lines(registry, 'qb_child_total')).toEqual([]);
    expect(await lines(registry, 'qb_child_depth')).toEqual([]);
    success.inc();
    success.inc(2);
    counter.inc({ destination: 'a', outcome: 'success' });
    depth.inc(3);
    depth.dec();
    expect(await lines(registry, 'qb_child_total')).toEqual([
      'qb_child_total{destination="a",outcome="success"} 4',
    ]);
    expect(await lines(registry, 'qb_child_depth')).toEqual(['qb_child_depth{destination="a"} 2']);
    depth.set(0);
    expect(await lines(registry, 'qb_child_depth')).toEqual(['qb_child_depth{destination="a"} 0']);
  });
});
