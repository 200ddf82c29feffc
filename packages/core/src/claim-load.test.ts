import { describe, expect, it } from 'vitest';
import { ClaimLoad } from './claim-load.js';

function loadAt(start = 10_000) {
  let now = start;
  const changes: boolean[] = [];
  const load = new ClaimLoad({ rowsPerWindow: 100, now: () => now });
  load.onChange((busy) => changes.push(busy));
  return {
    load,
    changes,
    at: (ms: number) => {
      now = start + ms;
    },
  };
}

describe('ClaimLoad', () => {
  it('is busy once three consecutive windows of 100 ms each claimed a full batch', () => {
    const { load, changes, at } = loadAt();
    at(10);
    load.record(100);
    at(110);
    load.record(60);
    load.record(40);
    expect(load.busy).toBe(false);
    at(250);
    load.record(99);
    expect(load.busy).toBe(false);
    load.record(1);
    expect(load.busy).toBe(true);
    expect(changes).toEqual([true]);
  });

  it('is not made busy by one large burst, nor by full windows with an empty one between', () => {
    const { load, at } = loadAt();
    at(0);
    load.record(100);
    load.record(100);
    load.record(100);
    load.record(100);
    expect(load.busy).toBe(false);
    at(100);
    load.record(100);
    // 200-299 claims nothing: the streak breaks.
    at(305);
    load.record(100);
    at(410);
    load.record(100);
    expect(load.busy).toBe(false);
    at(510);
    load.record(100);
    expect(load.busy).toBe(true);
  });

  it('stays busy through short windows and is idle a second after the last full one', () => {
    const { load, changes, at } = loadAt();
    for (const ms of [0, 100, 200]) {
      at(ms);
      load.record(100);
    }
    expect(load.busy).toBe(true);
    // Short windows from 300 ms on; the last full window ended at 300 ms.
    for (let ms = 300; ms < 1_300; ms += 100) {
      at(ms);
      load.record(10);
      expect(load.busy).toBe(true);
    }
    at(1_300);
    load.record(0);
    expect(load.busy).toBe(false);
    expect(changes).toEqual([true, false]);
  });

  it('turns idle on a read alone when no claim comes any more', () => {
    const { load, changes, at } = loadAt();
    for (const ms of [0, 100, 200]) {
      at(ms);
      load.record(150);
    }
    at(5_000);
    expect(load.busy).toBe(false);
    expect(changes).toEqual([true, false]);
  });

  it('unsubscribes', () => {
    const { load, at } = loadAt();
    const seen: boolean[] = [];
    const off = load.onChange((busy) => seen.push(busy));
    off();
    for (const ms of [0, 100, 200]) {
      at(ms);
      load.record(100);
    }
    expect(load.busy).toBe(true);
    expect(seen).toEqual([]);
  });
});
