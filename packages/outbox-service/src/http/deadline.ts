/**
 * One request's time budget. undici has no whole-request timeout (its headers/body timeouts are
 * per phase), so a timer aborts the request when `timeoutMs` is up; the caller's signal (the
 * poller cancels work whose claim was lost) aborts it too. `explain` turns whatever the request
 * threw into the failure text of spec §6.1.
 */
import { sanitize } from '@queuebox/core';

export class Deadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #outer: AbortSignal | undefined;
  readonly #onOuterAbort = (): void => this.#controller.abort();
  #timedOut = false;

  constructor(
    readonly timeoutMs: number,
    outer?: AbortSignal,
  ) {
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort();
    }, timeoutMs);
    this.#outer = outer;
    if (outer?.aborted === true) this.#controller.abort();
    else outer?.addEventListener('abort', this.#onOuterAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Whether the caller, not the timer, cancelled the request. */
  get cancelled(): boolean {
    return !this.#timedOut && this.#outer?.aborted === true;
  }

  /** Stops the timer; call it once the response is handled, or the timer keeps the process up. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#outer?.removeEventListener('abort', this.#onOuterAbort);
  }

  /** The failure text for an error the request threw (after or because of an abort). */
  explain(error: unknown): string {
    if (this.#timedOut) return `Request timeout after ${this.timeoutMs}ms`;
    if (this.cancelled) return 'Publish cancelled: the claim on the message was lost';
    return `Publish failed: ${sanitize(describeNetworkError(error))}`;
  }
}

/**
 * Network errors are often bare: `connect ECONNREFUSED 127.0.0.1:9`, or an AggregateError with
 * an empty message when every address of a host refused (happy eyeballs). Typed undici errors
 * keep their name (`SocketError: other side closed`) because it tells what broke.
 */
export function describeNetworkError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    parts.push(describeOne(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(' | caused by ');
}

function describeOne(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let message = error.message;
  if (message === '' && error instanceof AggregateError) {
    message = error.errors.map((inner: unknown) => describeOne(inner)).join('; ');
  }
  if (message === '') message = (error as { code?: unknown }).code?.toString() ?? '';
  const generic = error.name === 'Error' || error.name === 'AggregateError';
  if (generic) return message === '' ? error.name : message;
  return message === '' ? error.name : `${error.name}: ${message}`;
}
