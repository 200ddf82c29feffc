import { messageFrom } from '../message.js';
import { sanitizeError } from '../sanitize.js';
import { Delivery, type InboxHandler } from './delivery.js';
import {
  ABANDONED_BY_SHUTDOWN,
  held as newHeld,
  withConnection,
  type Held,
  type LoopSettings,
} from './held.js';
import { LeaseRenewal } from './lease-renewal.js';

/**
 * One run of the worker: claim while there is room (the claim runs alone, committed before any
 * handler), hand the claimed messages to at most `concurrency` deliveries, and on the stop
 * abandon what is queued and give what runs the shutdown grace.
 */
export class WorkerLoop {
  readonly #settings: LoopSettings;
  readonly #renewal: LeaseRenewal;
  readonly #delivery: Delivery;
  readonly #held = new Set<Held>();
  readonly #queue: Held[] = [];
  readonly #running = new Set<Promise<void>>();
  readonly #stop: AbortSignal;
  #wake: (() => void) | undefined;

  constructor(settings: LoopSettings, handler: InboxHandler, signal: AbortSignal | undefined) {
    this.#settings = settings;
    this.#renewal = new LeaseRenewal(settings, (held) => this.#drop(held));
    this.#delivery = new Delivery(settings, handler, this.#renewal);
    this.#stop = signal ?? new AbortController().signal;
  }

  async run(): Promise<void> {
    const o = this.#settings.options;
    const onStop = () => this.#nudge();
    this.#stop.addEventListener('abort', onStop);
    try {
      while (!this.#stop.aborted) {
        if (this.#held.size >= o.batchSize || this.#queue.length >= this.#settings.concurrency) {
          await this.#until(undefined);
          continue;
        }
        let claimed: Held[];
        try {
          claimed = await this.#claim(o.batchSize - this.#held.size);
        } catch (error: unknown) {
          o.logger.error('The claim failed.', { error: sanitizeError(error) });
          await this.#until(o.pollIntervalMs);
          continue;
        }
        for (const held of claimed) {
          this.#held.add(held);
          this.#renewal.start(held);
          this.#queue.push(held);
        }
        this.#pump();
        // No polling storm: an empty claim waits the poll interval (a finished message or the
        // stop ends the wait early only when there is something to do).
        if (claimed.length === 0) await this.#sleep(o.pollIntervalMs);
      }
    } finally {
      this.#stop.removeEventListener('abort', onStop);
    }
    await this.#shutdown();
  }

  async #claim(batch: number): Promise<Held[]> {
    const o = this.#settings.options;
    const candLimit = Math.min(Math.max(3 * batch, 50), 500);
    const rows = await withConnection(this.#settings.connections, (c) =>
      c.query(this.#settings.statements.claim.text, [o.source, batch, o.leaseMs, candLimit]),
    );
    return rows.rows.map((row) => {
      const { message, token } = messageFrom(row, o.schema, o.dialect === 'sqlserver');
      return newHeld(message, token);
    });
  }

  #pump(): void {
    while (this.#running.size < this.#settings.concurrency && this.#queue.length > 0) {
      const held = this.#queue.shift()!;
      const done = this.#delivery.deliver(held).finally(() => {
        this.#running.delete(done);
        this.#finish(held);
        this.#pump();
      });
      this.#running.add(done);
    }
  }

  #finish(held: Held): void {
    void this.#renewal.stop(held);
    this.#held.delete(held);
    this.#nudge();
  }

  /** A message that never started and will not: it leaves the queue and its lease expires. */
  #drop(held: Held): void {
    const index = this.#queue.indexOf(held);
    if (index >= 0) this.#queue.splice(index, 1);
    this.#finish(held);
  }

  async #shutdown(): Promise<void> {
    const o = this.#settings.options;
    // Nothing new starts; queued messages are abandoned at once, running ones get the grace.
    for (const held of [...this.#queue]) {
      held.abandoned = true;
      o.logger.info(ABANDONED_BY_SHUTDOWN, { messageId: held.message.id });
      this.#drop(held);
    }
    if (this.#running.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<'grace'>((resolve) => {
        timer = setTimeout(() => resolve('grace'), o.shutdownGraceMs);
      });
      const settled = Promise.all([...this.#running]).then(() => 'settled' as const);
      if ((await Promise.race([settled, graceOver])) === 'grace') {
        for (const held of this.#held) {
          held.abandoned = true;
          void this.#renewal.stop(held);
          held.controller.abort(new Error('The shutdown grace ran out.'));
        }
        // A handler that returns as the signal fires is rolled back as usual; the worker stops
        // waiting for any other one (it may never return) and lets its lease expire.
        await new Promise<void>((resolve) => setImmediate(resolve));
        for (const held of this.#held) held.leave?.();
      }
      clearTimeout(timer);
      await settled;
    }
  }

  #nudge(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Waits for a finished message or the stop, or at most `ms` when given. */
  #until(ms: number | undefined): Promise<void> {
    if (this.#stop.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  /** Waits `ms`, or less when the worker stops. */
  #sleep(ms: number): Promise<void> {
    if (this.#stop.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const stop = this.#stop;
      function done() {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        resolve();
      }
      stop.addEventListener('abort', done);
    });
  }
}
