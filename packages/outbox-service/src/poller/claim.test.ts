import { describe, expect, it } from 'vitest';
import { Claim } from './claim.js';

describe('Claim', () => {
  it('aborts a signal made before the claim ended, with its reason, once', () => {
    const claim = new Claim();
    const signal = claim.signal;
    expect(signal.aborted).toBe(false);
    const reasons: unknown[] = [];
    signal.addEventListener('abort', () => reasons.push(signal.reason));
    const lost = new Error('Claim ownership lost');
    claim.abort(lost);
    claim.abort(new Error('later'));
    expect(claim.aborted).toBe(true);
    expect(claim.reason).toBe(lost);
    expect(reasons).toEqual([lost]);
    expect(claim.signal).toBe(signal);
  });

  it('hands out an already aborted signal when it is first asked for after the claim ended', () => {
    const claim = new Claim();
    const abandoned = new Error('abandoned at shutdown');
    claim.abort(abandoned);
    expect(claim.signal.aborted).toBe(true);
    expect(claim.signal.reason).toBe(abandoned);
  });

  it('calls each watching listener once with the reason, and none that unwatched', () => {
    const claim = new Claim();
    const calls: string[] = [];
    const first = { cancelled: (reason: unknown) => calls.push(`first ${String(reason)}`) };
    const second = { cancelled: (reason: unknown) => calls.push(`second ${String(reason)}`) };
    const gone = { cancelled: () => calls.push('gone') };
    expect(claim.watch(first)).toBe(true);
    expect(claim.watch(gone)).toBe(true);
    expect(claim.watch(second)).toBe(true);
    claim.unwatch(gone);
    const lost = new Error('Claim ownership lost');
    claim.abort(lost);
    claim.abort(new Error('later'));
    expect(calls).toEqual([`first ${String(lost)}`, `second ${String(lost)}`]);
    expect(claim.watch({ cancelled: () => calls.push('late') })).toBe(false);
    expect(calls).toHaveLength(2);
  });
});
