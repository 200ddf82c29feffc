import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadlineEntry, DeadlineQueue } from './deadline-queue.js';

class Entry extends DeadlineEntry {
  expiredAt: number | null = null;
  constructor(private readonly clock: { now: number }) {
    super();
  }
  expire(): void {
    this.expiredAt = this.clock.now;
  }
}

describe('DeadlineQueue', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires each entry its budget after it was added, in order, with one timer', () => {
    vi.useFakeTimers();
    const clock = { now: 0 };
    const queue = new DeadlineQueue(100, { now: () => clock.now });
    const advance = (ms: number): void => {
      clock.now += ms;
      vi.advanceTimersByTime(ms);
    };
    const a = new Entry(clock);
    const b = new Entry(clock);
    const c = new Entry(clock);
    queue.add(a);
    advance(30);
    queue.add(b);
    advance(30);
    queue.add(c);
    expect(vi.getTimerCount()).toBe(1);
    // a ends in time: the timer is left where it was and finds nothing due.
    queue.remove(a);
    advance(40);
    expect([a.expiredAt, b.expiredAt, c.expiredAt]).toEqual([null, null, null]);
    advance(30);
    expect(b.expiredAt).toBe(130);
    expect(c.expiredAt).toBe(null);
    advance(30);
    expect(c.expiredAt).toBe(160);
    expect(queue.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps no timer once the last entry is removed, and removing twice changes nothing', () => {
    vi.useFakeTimers();
    const clock = { now: 0 };
    const queue = new DeadlineQueue(1000, { now: () => clock.now });
    const entries = [new Entry(clock), new Entry(clock), new Entry(clock)];
    for (const entry of entries) queue.add(entry);
    queue.remove(entries[1]!);
    queue.remove(entries[1]!);
    expect(queue.size).toBe(2);
    queue.remove(entries[2]!);
    queue.remove(entries[0]!);
    expect(queue.size).toBe(0);
    expect(queue.armed).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    // A fresh entry arms it again.
    const late = new Entry(clock);
    queue.add(late);
    clock.now += 1000;
    vi.advanceTimersByTime(1000);
    expect(late.expiredAt).toBe(1000);
  });

  it('expires on the real clock', async () => {
    const queue = new DeadlineQueue(20);
    const expired = new Promise<void>((resolve) => {
      queue.add(
        new (class extends DeadlineEntry {
          expire(): void {
            resolve();
          }
        })(),
      );
    });
    await expired;
    expect(queue.size).toBe(0);
  });

  it('lists its entries oldest first as a copy, so each can be ended while going through them', () => {
    const clock = { now: 0 };
    const queue = new DeadlineQueue<Entry>(100, { now: () => clock.now, unref: true });
    const entries = [new Entry(clock), new Entry(clock), new Entry(clock)];
    for (const entry of entries) queue.add(entry);
    const listed = queue.entries();
    expect(listed).toEqual(entries);
    for (const entry of listed) queue.remove(entry);
    expect(queue.size).toBe(0);
    expect(queue.armed).toBe(false);
  });

  it('with unref, its timer does not hold the process up; without, it does', () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const clock = { now: 0 };
    const held = new DeadlineQueue<Entry>(100);
    const free = new DeadlineQueue<Entry>(100, { unref: true });
    const a = new Entry(clock);
    const b = new Entry(clock);
    held.add(a);
    free.add(b);
    const [heldTimer, freeTimer] = spy.mock.results.map((r) => r.value as NodeJS.Timeout);
    spy.mockRestore();
    expect(heldTimer!.hasRef()).toBe(true);
    expect(freeTimer!.hasRef()).toBe(false);
    held.remove(a);
    free.remove(b);
  });
});
