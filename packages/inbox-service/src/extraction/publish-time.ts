/**
 * Publish-time parsing (spec §7.2). A sender's publish time only ever moves `scheduled_at`
 * earlier (the store takes LEAST(DB now, publish time)), so a text that is not clearly a time is
 * ignored rather than guessed at.
 */

/** Integers below this are epoch seconds, from it on epoch milliseconds (≈ year 5138 in seconds). */
export const EPOCH_SECONDS_LIMIT = 100_000_000_000;
/** 9999-12-31T23:59:59Z, the last second the column types of both databases hold; its whole second counts. */
const MAX_EPOCH_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const MAX_OFFSET_SECONDS = 18 * 3600;

/** An integer as Kotlin's `toLongOrNull` reads it; the minus sign is refused below. */
const INTEGER = /^[+-]?\d+$/;
const LONG_MAX = 2n ** 63n - 1n;
/**
 * ISO-8601 date-time with an offset, as `OffsetDateTime.parse` reads it: seconds and up to nine
 * fraction digits optional, `Z` or `±HH:MM[:SS]`, letters in any case.
 */
const ISO_OFFSET_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2})(?::(\d{2}))?)$/i;

/** The publish time a text names, or null when it is not a time in 1970-01-01 … 9999-12-31. */
export function parsePublishTime(text: string): Date | null {
  const value = text.trim();
  const millis = INTEGER.test(value) ? fromEpoch(value) : fromIso(value);
  if (millis === null || millis < 0 || millis > MAX_EPOCH_MS) return null;
  return new Date(millis);
}

function fromEpoch(text: string): number | null {
  const value = BigInt(text);
  if (value < 0n || value > LONG_MAX) return null;
  // Above 2^53 the number rounds, but then it is far beyond year 9999 and refused anyway.
  const number = Number(value);
  return number < EPOCH_SECONDS_LIMIT ? number * 1000 : number;
}

function fromIso(text: string): number | null {
  const match = ISO_OFFSET_DATE_TIME.exec(text);
  if (match === null) return null;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om, os] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? '0');
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetSeconds = 0;
  if (zulu === undefined) {
    const offsetMinutes = Number(om);
    const offsetSecs = Number(os ?? '0');
    if (offsetMinutes > 59 || offsetSecs > 59) return null;
    offsetSeconds = Number(oh) * 3600 + offsetMinutes * 60 + offsetSecs;
    if (offsetSeconds > MAX_OFFSET_SECONDS) return null;
    if (sign === '-') offsetSeconds = -offsetSeconds;
  }
  // Date holds milliseconds; further fraction digits are dropped, not rounded (as Instant#toEpochMilli).
  const millis = Number((fraction ?? '').padEnd(3, '0').slice(0, 3));
  // setUTCFullYear, unlike Date.UTC, does not read years 0..99 as 1900..1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime() - offsetSeconds * 1000;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
