import { QueueBoxError } from '../errors.js';
import type { Logger } from '../ports/logger.js';
import { redactReason } from './redact.js';
import { withTimeout } from './with-timeout.js';

/** Spec §17.1 step 5 / §19.3: 500 ms, doubling, at most 5 000 ms between attempts. */
const FIRST_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 5000;
/** The least time an attempt gets, even when the deadline is nearer (the last attempt). */
const MIN_ATTEMPT_MS = 500;

export interface WaitForDatabaseOptions {
  readonly startupTimeoutMs: number;
  /** Bound of one attempt (the pool's connection timeout). */
  readonly attemptTimeoutMs: number;
  readonly logger: Logger;
  /** Credentials to mask in logged reasons and in the final error. */
  readonly secrets?: readonly string[];
}

/**
 * Waits until `ping` (the dialect's `SELECT 1` on a pool connection) answers. A database that
 * starts together with QueueBox (compose, Kubernetes) is normal, so failures are retried until
 * `database.startupTimeoutMs`; the last attempt runs at the deadline. The texts are the same for
 * every dialect, so operators read one message whatever the database. Resolves with the number
 * of attempts it took.
 */
export async function waitForDatabase(
  ping: () => Promise<unknown>,
  options: WaitForDatabaseOptions,
): Promise<number> {
  const secrets = options.secrets ?? [];
  const deadline = Date.now() + options.startupTimeoutMs;
  let delay = FIRST_RETRY_DELAY_MS;
  for (let attempt = 1; ; attempt++) {
    let reason: string;
    try {
      const bound = Math.min(
        options.attemptTimeoutMs,
        Math.max(deadline - Date.now(), MIN_ATTEMPT_MS),
      );
      await withTimeout(ping(), bound, () => new Error(`no answer within ${bound} ms`));
      return attempt;
    } catch (error: unknown) {
      reason = redactReason(error, secrets);
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      // No cause attached: a driver error can carry the connection settings, and the message
      // already holds the redacted reason.
      throw new QueueBoxError(
        'database_unavailable',
        `The database did not answer inside ${options.startupTimeoutMs} ms, after ${attempt} attempt(s). Check 'database.url', the credentials, and the network. Raise 'database.startupTimeoutMs' if the database needs longer to start. Last reason: ${reason}`,
        { retryable: true },
      );
    }
    const wait = Math.min(delay, left);
    options.logger.warn(
      `The database did not answer on attempt ${attempt}. QueueBox retries in ${wait} ms. Reason: ${reason}`,
    );
    await new Promise((resolve) => setTimeout(resolve, wait));
    delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
  }
}
