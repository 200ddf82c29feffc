/**
 * The publishes of one destination waiting for their confirm, each bounded by the confirm wait
 * and by its claim, with ONE timer for every wait and no AbortSignal made for them.
 *
 * Why: a timer, an abort listener and the claim's AbortController per publish (what a
 * general-purpose bounded wait costs) were a visible part of a publish's CPU at 64 in flight.
 * Every wait has the same budget and starts in order, so the oldest unsettled wait is always due
 * first: one timer armed for it is enough. A claim lost while its publish waits ends the wait at
 * once through the request's cancel listener; a request without one (a direct caller) is watched
 * through its signal, as before.
 */
import type { CancelListener, PublishRequest } from '@queuebox/core';
import type { ConfirmResult, ConfirmSink } from './publish-channel.js';

/** How a confirm wait ended: the broker's answer, the confirm wait passing, or the claim ending. */
export type ConfirmEnd =
  ConfirmResult | { readonly kind: 'timeout' } | { readonly kind: 'aborted' };

const TIMEOUT: ConfirmEnd = { kind: 'timeout' };
const ABORTED: ConfirmEnd = { kind: 'aborted' };

/** One publish's wait: the channel settles it with the broker's answer, the waits otherwise. */
export class ConfirmWait implements ConfirmSink, CancelListener {
  readonly done: Promise<ConfirmEnd>;
  #resolve!: (end: ConfirmEnd) => void;
  #settled = false;

  constructor(
    readonly dueAt: number,
    readonly request: PublishRequest,
    private readonly owner: ConfirmWaits,
  ) {
    this.done = new Promise<ConfirmEnd>((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** The first call decides; later ones (a confirm after the timeout) do nothing. */
  settle(end: ConfirmEnd): void {
    if (this.#settled) return;
    this.#settled = true;
    this.owner.forget(this);
    this.#resolve(end);
  }

  cancelled(): void {
    this.settle(ABORTED);
  }
}

export class ConfirmWaits {
  /** Unsettled waits, oldest first: with one budget for all, also by `dueAt`. */
  readonly #unsettled = new Set<ConfirmWait>();
  /** Only for a request without `watchCancel`: its signal's listener. */
  readonly #signalListeners = new Map<ConfirmWait, () => void>();
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly timeoutMs: number) {}

  /** A wait for `request`, or null when its claim has ended already (nothing is to be sent). */
  start(request: PublishRequest): ConfirmWait | null {
    const wait = new ConfirmWait(performance.now() + this.timeoutMs, request, this);
    if (request.watchCancel !== undefined) {
      if (!request.watchCancel(wait)) return null;
    } else {
      const { signal } = request;
      if (signal.aborted) return null;
      const onAbort = () => wait.cancelled();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#signalListeners.set(wait, onAbort);
    }
    this.#unsettled.add(wait);
    if (this.#timer === null) this.#arm();
    return wait;
  }

  /** Called by a wait as it settles. */
  forget(wait: ConfirmWait): void {
    if (!this.#unsettled.delete(wait)) return;
    const { request } = wait;
    if (request.watchCancel !== undefined) {
      request.unwatchCancel?.(wait);
      return;
    }
    const onAbort = this.#signalListeners.get(wait);
    if (onAbort === undefined) return;
    this.#signalListeners.delete(wait);
    request.signal.removeEventListener('abort', onAbort);
  }

  /**
   * A wait that settles in time leaves the timer as it is: it fires at the old time, ends what
   * is due and is armed again for the oldest wait left.
   */
  #arm(): void {
    const oldest = this.#unsettled.values().next();
    if (oldest.done === true) return;
    this.#timer = setTimeout(
      () => this.#expire(),
      Math.max(0, oldest.value.dueAt - performance.now()),
    );
    // The connection keeps the process up while publishes wait, never this timer alone.
    this.#timer.unref();
  }

  #expire(): void {
    this.#timer = null;
    const now = performance.now();
    for (const wait of this.#unsettled) {
      if (wait.dueAt > now) break;
      wait.settle(TIMEOUT);
    }
    this.#arm();
  }
}
