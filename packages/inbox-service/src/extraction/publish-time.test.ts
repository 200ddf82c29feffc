import { describe, expect, it } from 'vitest';
import { parsePublishTime } from './publish-time.js';

const iso = (text: string) => parsePublishTime(text)?.toISOString() ?? null;

describe('parsePublishTime', () => {
  it('reads an integer below 100 000 000 000 as epoch seconds', () => {
    expect(iso('1700000000')).toBe('2023-11-14T22:13:20.000Z');
    expect(iso('0')).toBe('1970-01-01T00:00:00.000Z');
    expect(iso('99999999999')).toBe('5138-11-16T09:46:39.000Z');
    expect(iso(' 1700000000 ')).toBe('2023-11-14T22:13:20.000Z');
    expect(iso('+1700000000')).toBe('2023-11-14T22:13:20.000Z');
  });

  it('reads an integer from 100 000 000 000 on as epoch milliseconds', () => {
    expect(iso('100000000000')).toBe('1973-03-03T09:46:40.000Z');
    expect(iso('1700000000123')).toBe('2023-11-14T22:13:20.123Z');
  });

  it('refuses negative numbers, fractions and numbers past year 9999', () => {
    for (const text of [
      '-1',
      '-1700000000',
      '1700000000.5',
      '1e9',
      '253402300800000',
      '99999999999999999999',
    ]) {
      expect(parsePublishTime(text), text).toBeNull();
    }
    expect(iso('253402300799000')).toBe('9999-12-31T23:59:59.000Z');
  });

  it('reads ISO-8601 with an offset', () => {
    expect(iso('2026-09-21T10:00:00Z')).toBe('2026-09-21T10:00:00.000Z');
    expect(iso('2026-09-21T12:00:00+02:00')).toBe('2026-09-21T10:00:00.000Z');
    expect(iso('2026-09-21T05:30:00-04:30')).toBe('2026-09-21T10:00:00.000Z');
    expect(iso('2026-09-21T10:00Z')).toBe('2026-09-21T10:00:00.000Z');
    expect(iso('2026-09-21T10:00:00.123456789Z')).toBe('2026-09-21T10:00:00.123Z');
    expect(iso('2026-09-21t10:00:00z')).toBe('2026-09-21T10:00:00.000Z');
    expect(iso('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
    expect(iso('1969-12-31T23:30:00-01:00')).toBe('1970-01-01T00:30:00.000Z');
  });

  it('refuses ISO-8601 without an offset, impossible dates and other texts', () => {
    for (const text of [
      '2026-09-21T10:00:00',
      '2026-09-21',
      '2026-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-09-21T24:00:00Z',
      '2026-09-21T10:60:00Z',
      '2026-09-21T10:00:60Z',
      '2026-09-21T10:00:00+19:00',
      '2026-09-21T10:00:00+0200',
      '2026-09-21 10:00:00Z',
      'Mon, 21 Sep 2026 10:00:00 GMT',
      'tomorrow',
      '',
      'true',
    ]) {
      expect(parsePublishTime(text), text).toBeNull();
    }
  });

  it('refuses times before 1970 and after 9999-12-31T23:59:59Z', () => {
    expect(parsePublishTime('1969-12-31T23:59:59Z')).toBeNull();
    expect(parsePublishTime('0075-01-01T00:00:00Z')).toBeNull();
    expect(parsePublishTime('1970-01-01T00:30:00+01:00')).toBeNull();
    expect(iso('9999-12-31T23:59:59Z')).toBe('9999-12-31T23:59:59.000Z');
    expect(parsePublishTime('9999-12-31T23:59:59-00:01')).toBeNull();
  });
});
