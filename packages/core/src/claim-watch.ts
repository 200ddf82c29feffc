import type { CancelListener, PublishRequest } from './ports/publisher.js';

/** How a publisher learns that the claim on its row ended: the request's parts for it. */
export type ClaimCancel = Partial<Pick<PublishRequest, 'signal' | 'watchCancel' | 'unwatchCancel'>>;

/** Only for a caller without `watchCancel` (a direct caller with a signal): each listener's handler. */
const signalHandlers = new WeakMap<CancelListener, () => void>();

/**
 * Calls `listener.cancelled` once if the claim ends while it is watched: through the request's
 * cancel listener (the poller's, no AbortSignal listener per row), or through its signal for a
 * caller that has no such slot. Returns false, watching nothing, when the claim has ended
 * already, so nothing is to be sent. A request with neither has no claim to lose.
 */
export function watchClaim(cancel: ClaimCancel, listener: CancelListener): boolean {
  if (cancel.watchCancel !== undefined) return cancel.watchCancel(listener);
  const signal = cancel.signal;
  if (signal === undefined) return true;
  if (signal.aborted) return false;
  const onAbort = (): void => listener.cancelled(signal.reason);
  signalHandlers.set(listener, onAbort);
  signal.addEventListener('abort', onAbort, { once: true });
  return true;
}

/** Stops watching for `listener`; a no-op when it is not watched. */
export function unwatchClaim(cancel: ClaimCancel, listener: CancelListener): void {
  if (cancel.watchCancel !== undefined) {
    cancel.unwatchCancel?.(listener);
    return;
  }
  const onAbort = signalHandlers.get(listener);
  if (onAbort === undefined) return;
  signalHandlers.delete(listener);
  cancel.signal?.removeEventListener('abort', onAbort);
}
