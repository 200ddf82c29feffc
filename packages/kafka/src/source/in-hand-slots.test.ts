import { describe, expect, it } from 'vitest';
import { InHandSlots } from './in-hand-slots.js';

describe('InHandSlots', () => {
  it('lends at most its size at once and hands a released slot to the oldest waiter', async () => {
    const slots = new InHandSlots(2);
    const order: string[] = [];
    await slots.acquire();
    await slots.acquire();
    const third = slots.acquire().then(() => order.push('third'));
    const fourth = slots.acquire().then(() => order.push('fourth'));
    await Promise.resolve();
    expect(order).toEqual([]);
    slots.release();
    await third;
    expect(order).toEqual(['third']);
    slots.release();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    // Releases past the size never make more room than the size.
    for (let i = 0; i < 5; i++) slots.release();
    await slots.acquire();
    await slots.acquire();
    let fifth = false;
    void slots.acquire().then(() => (fifth = true));
    await Promise.resolve();
    expect(fifth).toBe(false);
  });

  it('takes a free slot at once with tryAcquire, never one a waiter is owed', async () => {
    const slots = new InHandSlots(1);
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(false);
    let waiter = false;
    const waiting = slots.acquire().then(() => (waiter = true));
    // The released slot goes to the waiter, not to the next tryAcquire.
    slots.release();
    expect(slots.tryAcquire()).toBe(false);
    await waiting;
    expect(waiter).toBe(true);
    slots.release();
    expect(slots.tryAcquire()).toBe(true);
  });
});
