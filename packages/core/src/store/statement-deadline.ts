import { QueueBoxError } from '../errors.js';

/**
 * The statement deadline both database adapters keep: a store call that has not settled within
 * `boundMs` fails as a transient `database_unavailable`, so the caller retries (a broker source
 * requeues) instead of waiting for good on a driver that lost its socket. The call itself is not
 * cancelled; it runs on, so what it does if it ran after all must be safe to do again. `bound`
 * says in the message where the number comes from (each dialect derives it from its own driver
 * timeouts).
 */
export async function settleWithin<T>(
  call: Promise<T>,
  boundMs: number,
  bound: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(
        new QueueBoxError(
          'database_unavailable',
          `The database did not answer ${bound}; a retry can succeed.`,
          { retryable: true },
        ),
      );
    }, boundMs);
  });
  try {
    // The race keeps a handler on the call, so its late rejection is never unhandled.
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
