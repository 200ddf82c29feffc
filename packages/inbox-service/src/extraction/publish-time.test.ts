import { describe, expect, it } from 'vitest';
import { parsePublishTime } from './publish-time.js';

/** Each text reads as the instant given with it. */
function expectReads(cases: Readonly<Record<string, string>>): void {
  for (const [text, instant] of Object.entries(cases)) {
    expect(parsePublishTime(text)?.toISOString() ?? null, text).toBe(instant);
  }
}

/** None of the texts reads as a publish time. */
function expectRefused(...texts: readonly string[]): void {
  for (const text of texts) expect(parsePublishTime(text), text).toBeNull();
}

describe('parsePublishTime', () => {
  it('reads an integer below 100 000 000 000 as epoch seconds', () => {
    expectReads({
      '1700000000': '2023-11-14T22:13:20.000Z',
      '0': '1970-01-01T00:00:00.000Z',
      '99999999999': '5138-11-16T09:46:39.000Z',
      ' 1700000000 ': '2023-11-14T22:13:20.000Z',
      '+1700000000': '2023-11-14T22:13:20.000Z',
    });
  });

  it('reads an integer from 100 000 000 000 on as epoch milliseconds', () => {
    expectReads({
      '100000000000': '1973-03-03T09:46:40.000Z',
      '1700000000123': '2023-11-14T22:13:20.123Z',
    });
  });

  it('refuses negative numbers, fractions and numbers past year 9999', () => {
    expectRefused('-1', '-1700000000', '1700000000.5', '1e9', '253402300800000');
    expectRefused('99999999999999999999');
    expectReads({ '253402300799000': '9999-12-31T23:59:59.000Z' });
  });

  it('reads ISO-8601 with an offset', () => {
    expectReads({
      '2026-09-21T10:00:00Z': '2026-09-21T10:00:00.000Z',
      '2026-09-21T12:00:00+02:00': '2026-09-21T10:00:00.000Z',
      '2026-09-21T05:30:00-04:30': '2026-09-21T10:00:00.000Z',
      '2026-09-21T10:00Z': '2026-09-21T10:00:00.000Z',
      '2026-09-21T10:00:00.123456789Z': '2026-09-21T10:00:00.123Z',
      '2026-09-21t10:00:00z': '2026-09-21T10:00:00.000Z',
      '2024-02-29T00:00:00Z': '2024-02-29T00:00:00.000Z',
      '1969-12-31T23:30:00-01:00': '1970-01-01T00:30:00.000Z',
    });
  });

  it('refuses ISO-8601 without an offset, impossible dates and other texts', () => {
    expectRefused('2026-09-21T10:00:00', '2026-09-21');
    expectRefused('2026-02-30T00:00:00Z', '2023-02-29T00:00:00Z', '2026-13-01T00:00:00Z');
    expectRefused('2026-09-21T24:00:00Z', '2026-09-21T10:60:00Z', '2026-09-21T10:00:60Z');
    expectRefused('2026-09-21T10:00:00+19:00', '2026-09-21T10:00:00+0200');
    expectRefused('2026-09-21 10:00:00Z', 'Mon, 21 Sep 2026 10:00:00 GMT');
    expectRefused('tomorrow', '', 'true');
  });

  it('refuses times before 1970 and after 9999-12-31T23:59:59Z', () => {
    expectRefused('1969-12-31T23:59:59Z', '0075-01-01T00:00:00Z', '1970-01-01T00:30:00+01:00');
    expectReads({ '9999-12-31T23:59:59Z': '9999-12-31T23:59:59.000Z' });
    expectRefused('9999-12-31T23:59:59-00:01');
  });
});
