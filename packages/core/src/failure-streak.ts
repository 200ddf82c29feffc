import type { Logger } from './ports/logger.js';

/**
 * Longest pause of a background loop (the outbox poller, the inbox relay) after failing cycles.
 * Under the 5 s within which the loops must resume once the database is back (docs/decisions.md,
 * "Database outages"): the first cycle after the return comes at most 4 s later and still has a
 * second for the pool's reconnect (at most 1 s, see the dialect's pool) and its statements.
 */
export const MAX_FAILURE_BACKOFF_MS = 4_000;

export interface FailureStreakOptions {
  readonly logger: Logger;
  /** The first pause; it doubles with every counted failure, up to `MAX_FAILURE_BACKOFF_MS`. */
  readonly baseDelayMs: number;
  /** The loop's failure line (the spec's wording), given the sanitized reason. */
  readonly failed: (reason: string) => string;
  /** The line when a cycle works again, given the failures counted in the streak. */
  readonly recovered: (failures: number) => string;
}

/**
 * The failures in a row of a background loop. An outage fails every cycle; logging each one at
 * ERROR buried the log under one line per cycle (ten a second for the relay), so the first
 * failure of a streak is logged at ERROR, the rest at DEBUG (LOG_LEVEL=DEBUG still shows every
 * retry), and the first success after it at INFO: one ERROR and one INFO per outage. The pause
 * before the next attempt doubles from `baseDelayMs` so a database that is down is not hammered.
 */
export class FailureStreak {
  /** Attempts of the loop that failed since the last success: they set the pause. */
  private count = 0;
  /** Every failure of the streak, side failures included: the INFO line reports them. */
  private logged = 0;
  private open = false;

  constructor(private readonly options: FailureStreakOptions) {}

  /** Failures counted since the last success. */
  get failures(): number {
    return this.count;
  }

  /** Logs a failed attempt of the loop and counts it; returns the pause before the next one. */
  failed(reason: string): number {
    this.count++;
    this.logged++;
    this.log(reason);
    return this.backoffMs();
  }

  /**
   * A failure beside the loop's attempts (a gauge refresh): an ERROR when no streak is open, else
   * nothing (the loop's own attempts already report the outage); it sets no pause.
   */
  sideFailed(reason: string): void {
    if (this.open) return;
    this.logged++;
    this.log(reason);
  }

  /** An attempt worked: closes the streak, with the INFO line when one was open. */
  succeeded(): void {
    if (this.open) this.options.logger.info(this.options.recovered(this.logged));
    this.open = false;
    this.count = 0;
    this.logged = 0;
  }

  /** The pause after the failures counted so far (0 when none). */
  backoffMs(): number {
    if (this.count === 0) return 0;
    const base = Math.max(1, this.options.baseDelayMs);
    return Math.min(
      base * 2 ** Math.min(this.count - 1, 16),
      Math.max(base, MAX_FAILURE_BACKOFF_MS),
    );
  }

  private log(reason: string): void {
    const line = this.options.failed(reason);
    if (this.open) {
      this.options.logger.debug(line);
      return;
    }
    this.open = true;
    this.options.logger.error(line);
  }
}
