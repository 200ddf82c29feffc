import { describe, expect, it } from 'vitest';
import { StatementGroup, type Settled } from './statement-group.js';

/** A runner that records each group and lets the test decide when a statement "commits". */
function recordingRunner() {
  const groups: number[][] = [];
  const release: (() => void)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const run = async (items: readonly number[]): Promise<Settled<string>[]> => {
    groups.push([...items]);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise<void>((resolve) => release.push(resolve));
    inFlight--;
    return items.map((n) =>
      n < 0 ? { ok: false, error: new Error(`bad ${n}`) } : { ok: true, value: `v${n}` },
    );
  };
  return { run, groups, release, maxInFlight: () => maxInFlight };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('StatementGroup', () => {
  it('sends the calls of one event-loop turn as one group', async () => {
    const r = recordingRunner();
    const group = new StatementGroup(r.run, 100);
    const calls = [1, 2, 3].map((n) => group.submit(n));
    await turn();
    expect(r.groups).toEqual([[1, 2, 3]]);
    r.release.shift()!();
    expect(await Promise.all(calls)).toEqual(['v1', 'v2', 'v3']);
  });

  it('keeps one statement in flight and queues the callers that arrive meanwhile', async () => {
    const r = recordingRunner();
    const group = new StatementGroup(r.run, 100);
    const first = group.submit(1);
    await turn();
    const later = [2, 3, 4].map((n) => group.submit(n));
    await turn();
    expect(r.groups).toEqual([[1]]);
    r.release.shift()!();
    await first;
    await turn();
    expect(r.groups).toEqual([[1], [2, 3, 4]]);
    r.release.shift()!();
    expect(await Promise.all(later)).toEqual(['v2', 'v3', 'v4']);
    expect(r.maxInFlight()).toBe(1);
  });

  it('splits a queue longer than the maximum into several statements, in order', async () => {
    const r = recordingRunner();
    const group = new StatementGroup(r.run, 2);
    const calls = [1, 2, 3, 4, 5].map((n) => group.submit(n));
    for (let i = 0; i < 3; i++) {
      await turn();
      r.release.shift()!();
    }
    expect(await Promise.all(calls)).toEqual(['v1', 'v2', 'v3', 'v4', 'v5']);
    expect(r.groups).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('settles each call with its own outcome, and rejects a whole group the runner throws on', async () => {
    const r = recordingRunner();
    const group = new StatementGroup(r.run, 100);
    const calls = [1, -2, 3].map((n) => group.submit(n));
    await turn();
    r.release.shift()!();
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);

    const failing = new StatementGroup<number, string>(
      () => Promise.reject(new Error('down')),
      100,
    );
    const both = await Promise.allSettled([failing.submit(1), failing.submit(2)]);
    expect(both.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });

  it('serves a call made from the continuation of a finished call', async () => {
    const group = new StatementGroup<number, string>(
      (items) => Promise.resolve(items.map((n) => ({ ok: true as const, value: `v${n}` }))),
      100,
    );
    // The second call is made in the microtask that resumes the first caller, after the
    // group's drain loop found its queue empty: it must not be stranded.
    const second = await group.submit(1).then(() => group.submit(2));
    expect(second).toBe('v2');
  });
});
