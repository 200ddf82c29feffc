import { describe, expect, it } from 'vitest';
import { constantTimeEquals } from './constant-time.js';

describe('constantTimeEquals', () => {
  it('is true only for equal texts, whatever the lengths', () => {
    expect(constantTimeEquals('abc', 'abc')).toBe(true);
    expect(constantTimeEquals('', '')).toBe(true);
    expect(constantTimeEquals('abc', 'abd')).toBe(false);
    expect(constantTimeEquals('abc', 'abcd')).toBe(false);
    expect(constantTimeEquals('', 'a')).toBe(false);
    expect(constantTimeEquals('é', 'e\u0301')).toBe(false);
  });
});
