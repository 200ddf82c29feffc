import { describe, expect, it } from 'vitest';
import { ByteGate } from './byte-gate.js';

/** A held piece of work: resolves when the test opens it. */
function held() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('ByteGate', () => {
  it('runs work up to the byte budget at once, the rest in arrival order, one oversized alone', async () => {
    const gate = new ByteGate(10);
    const running = new Set<string>();
    const seen: string[][] = [];
    const holds = new Map<string, ReturnType<typeof held>>();
    const run = (name: string, bytes: number) => {
      const hold = held();
      holds.set(name, hold);
      return gate.run(bytes, async () => {
        running.add(name);
        seen.push([...running].sort());
        await hold.promise;
        running.delete(name);
      });
    };
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    const all = [run('a', 4), run('b', 4), run('c', 4), run('big', 50), run('d', 1)];
    await tick();
    expect([...running].sort()).toEqual(['a', 'b']);
    holds.get('a')!.open();
    await tick();
    expect([...running].sort()).toEqual(['b', 'c']);
    holds.get('b')!.open();
    holds.get('c')!.open();
    await tick();
    // Larger than the budget: let in once nothing else runs, and alone.
    expect([...running]).toEqual(['big']);
    holds.get('big')!.open();
    await tick();
    expect([...running]).toEqual(['d']);
    holds.get('d')!.open();
    await Promise.all(all);
    expect(seen.every((names) => !names.includes('big') || names.length === 1)).toBe(true);
  });

  it('releases the bytes of work that failed', async () => {
    const gate = new ByteGate(10);
    await expect(gate.run(10, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(10, () => Promise.resolve('ran'))).toBe('ran');
  });
});
