/**
 * `Retry-After` (RFC 9110 §10.2.3): a whole number of seconds, or an HTTP date. Returns the wait
 * in ms from `nowMs` (0 for a date already past), or null when the value is neither.
 */
export function retryAfterDelayMs(value: string, nowMs: number): number | null {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An IMF-fixdate (or the two obsolete forms Date.parse also reads) names a day of the week.
  if (!/^[A-Za-z]{3}/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}
