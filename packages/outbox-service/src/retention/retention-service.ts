import {
  sleep,
  sanitizeError,
  systemClock,
  type Clock,
  type Logger,
  type RetentionConfig,
  type RetentionStore,
  type RetentionTable,
} from '@queuebox/core';
import type { RetentionMetrics } from '../metrics/outbox-metrics.js';
import { cleanTable } from './retention-cleanup.js';

export interface RetentionServiceDeps {
  readonly store: RetentionStore;
  readonly metrics: RetentionMetrics;
  readonly logger: Logger;
  /** App clock: the AGE cutoff and the last-run timestamp. */
  readonly clock?: Clock;
}

/** Spec §17.2/§19.3: the retention service gets 1 500 ms to stop. */
export const RETENTION_STOP_TIMEOUT_MS = 1_500;

const TABLES: readonly RetentionTable[] = ['outbox', 'inbox'];

/**
 * The retention service of spec §17.4, for both tables: one loop per table whose policy is not
 * DISABLED, which cleans at once and then every `cleanupInterval`. A failed run is logged and the
 * loop goes on (the next interval retries); the last-run timestamp moves only on success, so the
 * documented "cleanup stale" alert fires while runs keep failing. The waits are abortable, so
 * `close()` returns within 1 500 ms even in the middle of a run.
 */
export class RetentionService {
  private readonly abort = new AbortController();
  private readonly clock: Clock;
  private loops: Promise<void>[] = [];
  private started = false;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly config: RetentionConfig,
    private readonly deps: RetentionServiceDeps,
  ) {
    this.clock = deps.clock ?? systemClock;
  }

  /** True from `start()` until `close()` (the health check's flag). */
  get running(): boolean {
    return this.started && !this.abort.signal.aborted;
  }

  /** Starts one loop per enabled table; aborting `signal` is the same as `close()`. */
  start(signal?: AbortSignal): void {
    if (this.started || !this.config.enabled) return;
    this.started = true;
    signal?.addEventListener('abort', () => void this.close(), { once: true });
    this.loops = TABLES.filter((table) => this.config[table].policy !== 'DISABLED').map((table) =>
      this.loop(table),
    );
  }

  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    this.abort.abort();
    const stopped = new AbortController();
    let done = false;
    await Promise.race([
      Promise.allSettled(this.loops).then(() => {
        done = true;
      }),
      sleep(RETENTION_STOP_TIMEOUT_MS, stopped.signal),
    ]);
    stopped.abort();
    if (!done) {
      this.deps.logger.warn(
        `The retention service did not stop within ${RETENTION_STOP_TIMEOUT_MS} ms. A delete still runs; it ends with its statement.`,
      );
    }
  }

  /** One cleanup of `table` with its metrics; returns the rows deleted. Never throws. */
  async runOnce(table: RetentionTable): Promise<number> {
    const labels = { table };
    const stop = this.deps.metrics.duration.startTimer(labels);
    let deleted = 0;
    // Rows deleted before a failure count too; a run that deletes nothing still shows its 0.
    this.deps.metrics.deleted.inc(labels, 0);
    try {
      await cleanTable(this.deps.store, table, this.config[table], this.clock.now(), {
        signal: this.abort.signal,
        onDeleted: (count) => {
          deleted += count;
          this.deps.metrics.deleted.inc(labels, count);
        },
      });
      this.deps.metrics.lastRunTimestamp.set(labels, this.clock.now().getTime() / 1000);
      if (deleted > 0) this.deps.logger.info(`Retention deleted ${deleted} ${table} row(s).`);
    } catch (error: unknown) {
      this.deps.logger.error(
        `The ${table} retention cleanup failed. The next run retries in ${this.config[table].cleanupIntervalMs} ms. ` +
          `Reason: ${sanitizeError(error)}`,
      );
    } finally {
      stop();
    }
    return deleted;
  }

  private async loop(table: RetentionTable): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      await this.runOnce(table);
      await sleep(this.config[table].cleanupIntervalMs, signal);
    }
  }
}
