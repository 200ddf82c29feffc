/**
 * A conflated wake-up: any number of `wake()` calls before the waiter looks count as one.
 * The poller waits on it between cycles; capture and finished tasks wake it.
 */
export interface WakeSignal {
  wake(): void;
  /** Resolves after `timeoutMs`, on a wake, or when `signal` aborts, whichever is first. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<void>;
}
