/**
 * Retry delay of a failed outbox delivery (spec §4.5). The jitter spreads the retries of rows
 * that failed together (a broker outage) so they do not return as one burst.
 */
export const MAX_RETRY_DELAY_MS = 60_000;
const MAX_EXPONENT = 20;

/**
 * `base × 2^min(attempt, 20)` plus a uniform random integer in `[0, max(1, floor(that / 4))]`,
 * capped at 60 000 ms. `random` is injectable so tests can pin the jitter.
 */
export function retryDelayMs(
  attempt: number,
  baseDelayMs: number,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempt, 0), MAX_EXPONENT);
  const nominal = baseDelayMs * 2 ** exponent;
  const jitterBound = Math.max(1, Math.floor(nominal / 4));
  // Clamped, so a stub that returns 1 cannot push the jitter past its bound.
  const jitter = Math.min(Math.floor(random() * (jitterBound + 1)), jitterBound);
  return Math.min(nominal + jitter, MAX_RETRY_DELAY_MS);
}
