import { describe, expect, it } from 'vitest';
import { javaStringHashCode } from './java-hash.js';

describe('javaStringHashCode', () => {
  it.each([
    ['', 0],
    ['a', 97],
    ['inbox', 100344454],
    ['hello', 99162322],
    // Overflows into a negative int, as in Java.
    ['outbox', -1005526083],
    ['queuebox', -1164476646],
    ['Hello, World!', 1498789909],
    ['a'.repeat(20), 1542361408],
    // UTF-16 code units: é is one unit, the emoji is a surrogate pair.
    ['é', 233],
    ['😀', 1772899],
  ])('%j hashes to %i', (text, expected) => {
    expect(javaStringHashCode(text)).toBe(expected);
  });

  it('stays a 32-bit signed integer', () => {
    const hash = javaStringHashCode('x'.repeat(1000));
    expect(Number.isInteger(hash)).toBe(true);
    expect(hash).toBeGreaterThanOrEqual(-(2 ** 31));
    expect(hash).toBeLessThan(2 ** 31);
  });
});
