/**
 * Closing an undici dispatcher within a bound. `close()` waits for every request undici still
 * holds, including ones whose caller has already given up on them (a publish that timed out or
 * was abandoned at shutdown while its socket was still connecting, or a request queued behind a
 * lost connection): a destination that hung at its TLS handshake kept a SIGTERM waiting for the
 * connect timeout, and a lost connection kept it waiting for ever. Past the bound the dispatcher
 * is destroyed: nothing it still holds has a caller.
 */
import type { Dispatcher } from 'undici';

/**
 * The grace the publisher and the token manager give at close. The poller has already waited
 * `outbox.shutdownTimeoutMs` for its publishes and abandoned the rest (spec §4.6, §17.2).
 */
export const CLOSE_GRACE_MS = 1000;

export async function closeWithin(dispatcher: Dispatcher, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = dispatcher.close().then(
    () => true,
    () => true,
  );
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  try {
    if (await Promise.race([closed, expired])) return;
  } finally {
    clearTimeout(timer);
  }
  await dispatcher.destroy();
}
