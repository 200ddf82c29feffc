import { describe, expect, it } from 'vitest';
import { InHandWindow } from './in-hand-window.js';

const MiB = 1_048_576;

describe('InHandWindow', () => {
  it('asks for the count while messages are small, fewer at once when one is large, at least one', () => {
    const window = new InHandWindow(10, 16 * MiB);
    expect(window.size()).toBe(10);
    window.observe(1_000);
    expect(window.size()).toBe(10);
    window.observe(5 * MiB);
    expect(window.size()).toBe(3);
    window.observe(40 * MiB);
    expect(window.size()).toBe(1);
  });

  it('grows back only after a whole window of smaller messages', () => {
    const window = new InHandWindow(100, 16 * MiB);
    window.observe(MiB);
    expect(window.size()).toBe(16);
    for (let i = 0; i < 15; i++) window.observe(1_000);
    expect(window.size()).toBe(16);
    window.observe(1_000);
    expect(window.size()).toBe(100);
  });

  it('keeps the count when there is no byte budget', () => {
    const window = new InHandWindow(10, undefined);
    window.observe(100 * MiB);
    expect(window.size()).toBe(10);
  });
});
