import { describe, expect, it } from 'vitest';
import { unwatchClaim, watchClaim } from './claim-watch.js';
import type { CancelListener } from './ports/publisher.js';

function listener(): CancelListener & { reasons: unknown[] } {
  const reasons: unknown[] = [];
  return { reasons, cancelled: (reason) => reasons.push(reason) };
}

describe('watchClaim', () => {
  it("uses the request's cancel listener slot when it has one", () => {
    const watched = new Set<CancelListener>();
    const cancel = {
      watchCancel: (l: CancelListener) => (watched.add(l), true),
      unwatchCancel: (l: CancelListener) => void watched.delete(l),
      signal: AbortSignal.abort(),
    };
    const l = listener();
    expect(watchClaim(cancel, l)).toBe(true);
    expect(watched.has(l)).toBe(true);
    unwatchClaim(cancel, l);
    expect(watched.size).toBe(0);
  });

  it('reports a claim that has ended already, watching nothing', () => {
    expect(watchClaim({ watchCancel: () => false }, listener())).toBe(false);
    expect(watchClaim({ signal: AbortSignal.abort() }, listener())).toBe(false);
  });

  it('watches a signal without a slot: one call on abort, none after unwatch', () => {
    const first = new AbortController();
    const a = listener();
    expect(watchClaim({ signal: first.signal }, a)).toBe(true);
    first.abort('lost');
    first.abort('again');
    expect(a.reasons).toEqual(['lost']);

    const second = new AbortController();
    const b = listener();
    watchClaim({ signal: second.signal }, b);
    unwatchClaim({ signal: second.signal }, b);
    second.abort('lost');
    expect(b.reasons).toEqual([]);
  });

  it('has nothing to watch without a slot or a signal', () => {
    const l = listener();
    expect(watchClaim({}, l)).toBe(true);
    unwatchClaim({}, l);
    expect(l.reasons).toEqual([]);
  });
});
