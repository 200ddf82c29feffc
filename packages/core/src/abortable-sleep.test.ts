import { describe, expect, it } from 'vitest';
import { settledWithin, sleep } from './abortable-sleep.js';

describe('sleep', () => {
  it('ends early, without rejecting, when its signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const slept = sleep(10_000, controller.signal);
    setTimeout(() => controller.abort(), 10);
    await expect(slept).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('returns at once for a signal that aborted already', async () => {
    const started = Date.now();
    await sleep(10_000, AbortSignal.abort());
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('settledWithin', () => {
  it('tells whether every promise settled in time', async () => {
    const never = new Promise<void>(() => undefined);
    expect(await settledWithin([Promise.resolve(), Promise.reject(new Error('x'))], 1_000)).toBe(
      true,
    );
    expect(await settledWithin([Promise.resolve(), never], 20)).toBe(false);
    expect(await settledWithin([], 0)).toBe(true);
  });
});
