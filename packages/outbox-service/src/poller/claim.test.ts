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
});
