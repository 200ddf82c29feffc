import { describe, expect, it } from 'vitest';
import type { OutboxCompletion } from '@queuebox/core';
import { CompletionWriter } from './completion-writer.js';

function sent(id: string): OutboxCompletion {
  return { kind: 'sent', fence: { id, claimToken: `token-${id}` } };
}

/** A store whose `complete` call stays open until the test releases it. */
function gatedStore(lost: ReadonlySet<string> = new Set()) {
  const calls: string[][] = [];
  const gates: (() => void)[] = [];
  let failNext: Error | null = null;
  return {
    calls,
    release: () => gates.shift()?.(),
    failNext: (error: Error) => {
      failNext = error;
    },
    complete(completions: readonly OutboxCompletion[]): Promise<Set<string>> {
      const ids = completions.map((c) => c.fence.id);
      calls.push(ids);
      const error = failNext;
      failNext = null;
      return new Promise((resolve, reject) => {
        gates.push(() =>
          error ? reject(error) : resolve(new Set(ids.filter((id) => !lost.has(id)))),
        );
      });
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CompletionWriter (group commit)', () => {
  it('writes at once when idle and groups what arrives while a call is in flight', async () => {
    const store = gatedStore(new Set(['c']));
    const writer = new CompletionWriter(store);
    const a = writer.submit(sent('a'));
    await tick();
    expect(store.calls).toEqual([['a']]);
    const rest = ['b', 'c', 'd'].map((id) => writer.submit(sent(id)));
    await tick();
    expect(store.calls).toHaveLength(1);
    store.release();
    expect(await a).toBe(true);
    await tick();
    expect(store.calls).toEqual([['a'], ['b', 'c', 'd']]);
    store.release();
    expect(await Promise.all(rest)).toEqual([true, false, true]);
    await writer.drain();
  });

  it('groups the completions of one event-loop turn into one call', async () => {
    const store = gatedStore();
    const writer = new CompletionWriter(store);
    const all = ['a', 'b', 'c'].map((id) => writer.submit(sent(id)));
    await tick();
    expect(store.calls).toEqual([['a', 'b', 'c']]);
    store.release();
    expect(await Promise.all(all)).toEqual([true, true, true]);
  });

  it('rejects every completion of a failed call and goes on with the next', async () => {
    const store = gatedStore();
    const writer = new CompletionWriter(store);
    store.failNext(new Error('connection reset'));
    const first = writer.submit(sent('a'));
    await tick();
    const second = writer.submit(sent('b'));
    store.release();
    await expect(first).rejects.toThrow('connection reset');
    await tick();
    store.release();
    expect(await second).toBe(true);
  });

  it('bounds one call to maxBatch completions', async () => {
    const store = gatedStore();
    const writer = new CompletionWriter(store, { maxBatch: 2 });
    const all = ['a', 'b', 'c', 'd', 'e'].map((id) => writer.submit(sent(id)));
    for (let i = 0; i < 3; i++) {
      await tick();
      store.release();
    }
    await Promise.all(all);
    expect(store.calls).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  describe('lingering while more completions are on their way', () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    it('waits up to lingerMs for company, then writes what gathered in one call', async () => {
      const store = gatedStore();
      const writer = new CompletionWriter(store, { moreExpected: () => true, lingerMs: 40 });
      const first = writer.submit(sent('a'));
      await sleep(10);
      const second = writer.submit(sent('b'));
      await tick();
      expect(store.calls).toEqual([]);
      await sleep(60);
      expect(store.calls).toEqual([['a', 'b']]);
      store.release();
      expect(await Promise.all([first, second])).toEqual([true, true]);
    });

    it('writes at once when lingerRows are queued', async () => {
      const store = gatedStore();
      const writer = new CompletionWriter(store, {
        moreExpected: () => true,
        lingerMs: 10_000,
        lingerRows: 3,
      });
      const all = ['a', 'b', 'c'].map((id) => writer.submit(sent(id)));
      await tick();
      expect(store.calls).toEqual([['a', 'b', 'c']]);
      store.release();
      expect(await Promise.all(all)).toEqual([true, true, true]);
    });

    it('does not wait when nothing else is expected (a lone message)', async () => {
      const store = gatedStore();
      let publishing = true;
      const writer = new CompletionWriter(store, {
        moreExpected: () => publishing,
        lingerMs: 10_000,
      });
      const lingering = writer.submit(sent('a'));
      await tick();
      expect(store.calls).toEqual([]);
      // The last publish ends: its completion takes the lingering one along at once.
      publishing = false;
      const last = writer.submit(sent('b'));
      await tick();
      expect(store.calls).toEqual([['a', 'b']]);
      store.release();
      expect(await Promise.all([lingering, last])).toEqual([true, true]);
    });

    it('lets an unkeyed completion wait unkeyedLingerMs, a keyed one only lingerMs', async () => {
      const store = gatedStore();
      const writer = new CompletionWriter(store, {
        moreExpected: () => true,
        lingerMs: 30,
        unkeyedLingerMs: 10_000,
      });
      const unkeyed = writer.submit(sent('a'), false);
      await sleep(100);
      // Past lingerMs, short of unkeyedLingerMs: still waiting for company.
      expect(store.calls).toEqual([]);
      const keyed = writer.submit(sent('b'), true);
      await tick();
      expect(store.calls).toEqual([]);
      // The keyed one's due time (30 ms after its submit) takes the batch out with it.
      await sleep(400);
      expect(store.calls).toEqual([['a', 'b']]);
      store.release();
      expect(await Promise.all([unkeyed, keyed])).toEqual([true, true]);
    });

    it('writes an unkeyed completion once unkeyedLingerMs is over', async () => {
      const store = gatedStore();
      const writer = new CompletionWriter(store, {
        moreExpected: () => true,
        lingerMs: 10,
        unkeyedLingerMs: 150,
      });
      const unkeyed = writer.submit(sent('a'), false);
      await sleep(50);
      expect(store.calls).toEqual([]);
      await sleep(600);
      expect(store.calls).toEqual([['a']]);
      store.release();
      expect(await unkeyed).toBe(true);
    });

    it('drain() writes a lingering batch without waiting out the timer', async () => {
      const store = gatedStore();
      const writer = new CompletionWriter(store, { moreExpected: () => true, lingerMs: 10_000 });
      const pending = writer.submit(sent('a'));
      const drained = writer.drain();
      await tick();
      expect(store.calls).toEqual([['a']]);
      store.release();
      await drained;
      expect(await pending).toBe(true);
    });
  });
});
