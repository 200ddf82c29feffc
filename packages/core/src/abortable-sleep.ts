/** Waits `ms`, or less when `signal` aborts; never rejects, so loops can simply re-check. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** True when every promise settled within `ms`; the timer never outlives the answer. */
export async function settledWithin(
  promises: readonly Promise<unknown>[],
  ms: number,
): Promise<boolean> {
  if (promises.length === 0) return true;
  if (ms <= 0) return false;
  const timer = new AbortController();
  let finished = false;
  await Promise.race([
    Promise.allSettled(promises).then(() => {
      finished = true;
    }),
    sleep(ms, timer.signal),
  ]);
  timer.abort();
  return finished;
}
