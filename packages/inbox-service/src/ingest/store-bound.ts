import { QueueBoxError } from '@queuebox/core';

/**
 * How long a webhook waits for its store before it is answered `500 {"error":"Storage failed"}`.
 * The pool's own bounds follow `database.connectionTimeoutMs` (30 s by default, a statement up to
 * twice that): a database that stops answering (a dead network drops the packets, nothing resets)
 * held every webhook for the whole connection timeout (seen through the fault proxy), and a
 * sender's own timeout is often shorter. Answered within 5 s instead (docs/decisions.md,
 * "Database outages"); the sender resends, and the idempotency key makes a store that committed
 * late a duplicate (200), never a second row. A database that is only slow answers well inside
 * the bound, even for bursts of webhooks with latency added to every packet
 * (database-slow.integration.test.ts).
 */
export const STORE_ANSWER_BOUND_MS = 4_000;

/** `work`, or a transient `database_unavailable` once `ms` passed; the store itself runs on. */
export async function storedWithin<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new QueueBoxError(
            'database_unavailable',
            `The database did not store the message within ${ms} ms; a retry can succeed.`,
            { retryable: true },
          ),
        ),
      ms,
    );
  });
  try {
    // The race keeps a handler on `work`, so its late rejection is never unhandled.
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
