import type { CancelListener } from '@queuebox/core';

/**
 * The claim on one row as its task sees it: `aborted` once the claim is gone (lease lost, or
 * abandoned at shutdown) with the `reason`, and an AbortSignal for I/O that takes one, made on
 * first use. Most claims never end, and an AbortController per message, with its garbage, was a
 * large share of the poller's own cost per message to a publisher that never looks at the signal. A
 * broker publisher may look at the signal only for the publishes still waiting at its sweep. The
 * HTTP publisher registers its request as a listener instead (`watch`): one slot, no event target,
 * nothing made for a claim never lost.
 */
export class Claim {
  #aborted = false;
  #reason: unknown = undefined;
  #controller: AbortController | null = null;
  /** Nearly always one listener at most (one publish per claim); more go to `#others`. */
  #listener: CancelListener | null = null;
  #others: Set<CancelListener> | null = null;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Runs `listener.cancelled` once when the claim is lost; false if it already is. */
  watch(listener: CancelListener): boolean {
    if (this.#aborted) return false;
    if (this.#listener === null) this.#listener = listener;
    else (this.#others ??= new Set()).add(listener);
    return true;
  }

  unwatch(listener: CancelListener): void {
    if (this.#listener === listener) this.#listener = null;
    else this.#others?.delete(listener);
  }

  abort(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = [this.#listener, ...(this.#others ?? [])];
    this.#listener = null;
    this.#others = null;
    for (const listener of listeners) listener?.cancelled(reason);
  }
}
