/**
 * The publishes of one destination waiting for their confirm, each bounded by the confirm wait
 * and by its claim, with ONE timer for every wait (core's DeadlineQueue) and no AbortSignal made
 * for them.
 *
 * Why: a timer, an abort listener and the claim's AbortController per publish (what a
 * general-purpose bounded wait costs) were a visible part of a publish's CPU at 64 in flight.
 * A claim lost while its publish waits ends the wait at once through the request's cancel
 * listener; a request without one (a direct caller) is watched through its signal.
 */
import {
  DeadlineEntry,
  DeadlineQueue,
  unwatchClaim,
  watchClaim,
  type CancelListener,
  type PublishRequest,
} from '@queuebox/core';
import type { ConfirmResult, ConfirmSink } from './publish-channel.js';

/** How a confirm wait ended: the broker's answer, the confirm wait passing, or the claim ending. */
export type ConfirmEnd =
  ConfirmResult | { readonly kind: 'timeout' } | { readonly kind: 'aborted' };

const TIMEOUT: ConfirmEnd = { kind: 'timeout' };
const ABORTED: ConfirmEnd = { kind: 'aborted' };

/** One publish's wait: the channel settles it with the broker's answer, the waits otherwise. */
export class ConfirmWait extends DeadlineEntry implements ConfirmSink, CancelListener {
  readonly done: Promise<ConfirmEnd>;
  #resolve!: (end: ConfirmEnd) => void;
  #settled = false;

  constructor(
    readonly request: PublishRequest,
    private readonly deadlines: DeadlineQueue<ConfirmWait>,
  ) {
    super();
    this.done = new Promise<ConfirmEnd>((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** The first call decides; later ones (a confirm after the timeout) do nothing. */
  settle(end: ConfirmEnd): void {
    if (this.#settled) return;
    this.#settled = true;
    this.deadlines.remove(this);
    unwatchClaim(this.request, this);
    this.#resolve(end);
  }

  expire(): void {
    this.settle(TIMEOUT);
  }

  cancelled(): void {
    this.settle(ABORTED);
  }
}

export class ConfirmWaits {
  // The connection keeps the process up while publishes wait, never this timer alone.
  readonly #deadlines: DeadlineQueue<ConfirmWait>;

  constructor(timeoutMs: number) {
    this.#deadlines = new DeadlineQueue<ConfirmWait>(timeoutMs, { unref: true });
  }

  /** A wait for `request`, or null when its claim has ended already (nothing is to be sent). */
  start(request: PublishRequest): ConfirmWait | null {
    const wait = new ConfirmWait(request, this.#deadlines);
    if (!watchClaim(request, wait)) return null;
    this.#deadlines.add(wait);
    return wait;
  }
}
