import { describe, expect, it } from 'vitest';
import { retryAfterDelayMs } from './retry-after.js';

describe('retryAfterDelayMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads whole seconds', () => {
    expect(retryAfterDelayMs('120', now)).toBe(120_000);
    expect(retryAfterDelayMs(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date, a past one as no wait', () => {
    expect(retryAfterDelayMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterDelayMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it('refuses anything else', () => {
    for (const value of ['', '-5', '1.5', 'soon', '2026-01-01', 'Mon, not a date']) {
      expect(retryAfterDelayMs(value, now)).toBeNull();
    }
  });
});
