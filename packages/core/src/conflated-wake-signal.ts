import type { WakeSignal } from './ports/wake-signal.js';

/**
 * The conflated wake of spec §4.1: any number of `wake()` calls while nobody waits count as one,
 * so a burst of finished tasks (or capture events) costs one extra cycle, not one per call.
 * A wake that arrives before `wait()` is not lost: the next wait returns at once.
 */
export class ConflatedWakeSignal implements WakeSignal {
  private pending = false;
  private waiter: (() => void) | null = null;

  wake(): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter();
    } else {
      this.pending = true;
    }
  }

  wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.pending || signal?.aborted) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        if (this.waiter === done) this.waiter = null;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      signal?.addEventListener('abort', done, { once: true });
      // One waiter at a time (the poller loop); a second wait supersedes and releases the first.
      this.waiter?.();
      this.waiter = done;
    });
  }
}
