import { DoublingBackoff } from './doubling-backoff.js';

/**
 * The reconnect loop of a broker source after a lost connection or a start that could not reach
 * the broker: one attempt at a time, `initialMs` doubling to `maxMs` between attempts (reconnecting
 * at once hammers a broker that is down), back to `initialMs` once a connect works, and no new
 * attempt once `stop` aborts. The source supplies the attempt and what to do with its result.
 */
export class ReconnectSchedule {
  readonly #backoff: DoublingBackoff;
  #timer: NodeJS.Timeout | null = null;
  #nextMs: number;

  constructor(
    private readonly stop: AbortSignal,
    initialMs = 250,
    maxMs = 5_000,
  ) {
    this.#backoff = new DoublingBackoff(1, initialMs, maxMs);
    this.#nextMs = this.#backoff.next();
  }

  /** The wait before the next attempt, as a failure's log line announces it. */
  get nextDelayMs(): number {
    return this.#nextMs;
  }

  /** A connect worked: the next loss starts again from the first wait. */
  connected(): void {
    this.#backoff.reset();
    this.#nextMs = this.#backoff.next();
  }

  /** Runs `attempt` after the next wait, unless one is already waiting or the source stops. */
  schedule(
    attempt: () => Promise<void>,
    onConnected: () => void,
    onFailed: (error: unknown) => void,
  ): void {
    if (this.stop.aborted || this.#timer !== null) return;
    const delay = this.#nextMs;
    this.#nextMs = this.#backoff.next();
    this.#timer = setTimeout(() => {
      this.#timer = null;
      attempt().then(onConnected, onFailed);
    }, delay);
  }

  cancel(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
