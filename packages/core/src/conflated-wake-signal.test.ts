import { describe, expect, it } from 'vitest';
import { ConflatedWakeSignal } from './conflated-wake-signal.js';

describe('ConflatedWakeSignal', () => {
  it('returns at once for a wake that came before the wait, and only once for many wakes', async () => {
    const wake = new ConflatedWakeSignal();
    wake.wake();
    wake.wake();
    wake.wake();
    const started = performance.now();
    await wake.wait(1_000);
    expect(performance.now() - started).toBeLessThan(50);
    const second = performance.now();
    await wake.wait(30);
    expect(performance.now() - second).toBeGreaterThanOrEqual(25);
  });

  it('ends a running wait on wake, on abort, or after the timeout', async () => {
    const wake = new ConflatedWakeSignal();
    let started = performance.now();
    const waiting = wake.wait(5_000);
    setTimeout(() => wake.wake(), 10);
    await waiting;
    expect(performance.now() - started).toBeLessThan(1_000);

    const controller = new AbortController();
    started = performance.now();
    const aborted = wake.wait(5_000, controller.signal);
    setTimeout(() => controller.abort(), 10);
    await aborted;
    expect(performance.now() - started).toBeLessThan(1_000);

    started = performance.now();
    await wake.wait(20);
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
  });
});
