import { describe, expect, it } from 'vitest';
import { correlationIdOf } from './correlation-id.js';

describe('correlationIdOf', () => {
  it('reads X-Correlation-Id in any letter case', () => {
    expect(correlationIdOf({ 'X-Correlation-Id': 'a' })).toBe('a');
    expect(correlationIdOf({ 'x-correlation-id': 'b' })).toBe('b');
    expect(correlationIdOf({ 'X-CORRELATION-ID': 'c', other: 'x' })).toBe('c');
    expect(correlationIdOf({ 'x-correlation': 'd' })).toBeUndefined();
  });
});
