/**
 * A wait with three ways out besides the work itself: a timeout, the caller's abort (its claim
 * on the row ended), and a `cancel` the owner calls (the connection was lost, the publisher
 * closed). Never rejects: the result says which came first.
 */
export type Bounded<T> =
  | { readonly kind: 'done'; readonly value: T }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'cancelled'; readonly reason: string };

export interface BoundedWait<T> {
  readonly result: Promise<Bounded<T>>;
  /** Ends the wait with `cancelled` unless it has ended already. */
  cancel(reason: string): void;
}

export function bounded<T>(
  work: Promise<T>,
  timeoutMs: number,
  signal: AbortSignal,
): BoundedWait<T> {
  let finish!: (result: Bounded<T>) => void;
  const result = new Promise<Bounded<T>>((resolve) => {
    const done = (outcome: Bounded<T>) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    finish = done;
    const onAbort = () => done({ kind: 'aborted' });
    const timer = setTimeout(() => done({ kind: 'timeout' }), timeoutMs);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => done({ kind: 'done', value }),
      (error: unknown) => done({ kind: 'failed', error }),
    );
  });
  return { result, cancel: (reason) => finish({ kind: 'cancelled', reason }) };
}
