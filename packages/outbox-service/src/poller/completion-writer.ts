import type { OutboxCompletion, OutboxStore } from '@queuebox/core';

interface Waiting {
  readonly completion: OutboxCompletion;
  readonly resolve: (held: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit of the fenced terminal writes (sent / retry / dead). One `complete` call is in
 * flight at a time; completions that arrive meanwhile queue up and go together in the next call.
 * When the writer is idle a completion goes out at once (after the current microtask, so the
 * completions of one event-loop turn share a call), which keeps latency at one round trip while
 * throughput no longer costs one round trip per message.
 *
 * A failing call rejects every completion of that call: each task then runs its own error path,
 * as it would have after a failed single-row write.
 */
export class CompletionWriter {
  private queue: Waiting[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<OutboxStore, 'complete'>,
    /** Upper bound of one call, so a statement never grows without limit. */
    private readonly maxBatch = 500,
  ) {}

  /** Resolves true when the fence held and the write happened, false when the claim was lost. */
  submit(completion: OutboxCompletion): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ completion, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Resolves when everything submitted so far is written (or failed). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    await Promise.resolve();
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const held = await this.store.complete(batch.map((w) => w.completion));
          for (const w of batch) w.resolve(held.has(w.completion.fence.id));
        } catch (error: unknown) {
          for (const w of batch) w.reject(error);
        }
      }
    } finally {
      this.flushing = null;
    }
  }
}
