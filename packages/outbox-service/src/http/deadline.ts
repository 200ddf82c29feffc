/**
 * One request's time budget for `request()` callers (the OAuth2 token request): undici has no
 * whole-request timeout (its headers/body timeouts are per phase), so a timer aborts the request
 * when `timeoutMs` is up. The publish path keeps its own budget in http-exchange.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  #timedOut = false;

  constructor(readonly timeoutMs: number) {
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort();
    }, timeoutMs);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Stops the timer; call it once the response is handled, or the timer keeps the process up. */
  clear(): void {
    clearTimeout(this.#timer);
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
