import { afterEach, describe, expect, it } from 'vitest';
import type { Fence } from '@queuebox/core';
import { LeaseKeeper } from './lease-keeper.js';
import { RecordingLogger, until } from '@queuebox/testing';

function fence(id: string): Fence {
  return { id, claimToken: `t-${id}` };
}

let keeper: LeaseKeeper | undefined;
afterEach(async () => {
  keeper?.abortAll(new Error('test end'));
  await keeper?.close();
  keeper = undefined;
});

describe('LeaseKeeper', () => {
  it('renews every kept claim in one call and aborts the ones the store did not return', async () => {
    const calls: string[][] = [];
    const owned = new Set(['a', 'c']);
    keeper = new LeaseKeeper(
      {
        renew: (fences: readonly Fence[], leaseMs: number) => {
          expect(leaseMs).toBe(300);
          calls.push(fences.map((f) => f.id));
          return Promise.resolve(new Set(fences.map((f) => f.id).filter((id) => owned.has(id))));
        },
      },
      { leaseMs: 300, intervalMs: 20, logger: new RecordingLogger() },
    );
    const now = performance.now();
    const a = keeper.track(fence('a'), now);
    const b = keeper.track(fence('b'), now);
    const c = keeper.track(fence('c'), now);
    await until(() => calls.length >= 1);
    expect(calls[0]).toEqual(['a', 'b', 'c']);
    await until(() => b.aborted);
    expect((b.reason as Error).message).toBe('Claim ownership lost');
    expect(a.aborted || c.aborted).toBe(false);
    expect(keeper.size).toBe(2);
  });

  it('leaves a settling claim to its fenced write and skips it in renewals', async () => {
    const calls: string[][] = [];
    keeper = new LeaseKeeper(
      {
        renew: (fences: readonly Fence[]) => {
          calls.push(fences.map((f) => f.id));
          return Promise.resolve(new Set<string>());
        },
      },
      { leaseMs: 300, intervalMs: 20, logger: new RecordingLogger() },
    );
    const a = keeper.track(fence('a'), performance.now());
    keeper.track(fence('b'), performance.now());
    keeper.settling('a');
    await until(() => calls.length >= 1);
    expect(calls[0]).toEqual(['b']);
    expect(a.aborted).toBe(false);
  });

  it('does not take a throwing renewal as a loss until the lease has run out', async () => {
    let now = 0;
    const logger = new RecordingLogger();
    keeper = new LeaseKeeper(
      { renew: () => Promise.reject(new Error('connection reset')) },
      { leaseMs: 300, intervalMs: 1_000_000, logger, nowMs: () => now },
    );
    const a = keeper.track(fence('a'), 0);
    now = 100;
    await keeper.renew();
    expect(a.aborted).toBe(false);
    expect(logger.messages('warn')).toEqual([
      'Renewing the claims of 1 message(s) failed. The next renewal retries. Reason: Error: connection reset',
    ]);
    now = 300;
    await keeper.renew();
    expect(a.aborted).toBe(true);
  });

  it('stops renewing once nothing is kept', async () => {
    let calls = 0;
    keeper = new LeaseKeeper(
      {
        renew: (fences: readonly Fence[]) => {
          calls++;
          return Promise.resolve(new Set(fences.map((f) => f.id)));
        },
      },
      { leaseMs: 300, intervalMs: 10, logger: new RecordingLogger() },
    );
    keeper.track(fence('a'), performance.now());
    await until(() => calls >= 1);
    keeper.release('a');
    const after = calls;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toBeLessThanOrEqual(after + 1);
  });
});
