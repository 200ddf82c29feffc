import { checkAdapterDialect } from './adapter-dialect.js';
import type { InboxConnection, InboxConnectionSource, InboxTransaction } from './connections.js';
import { handlerTransaction } from './handler-transaction.js';
import { inboxSql } from './inbox-sql.js';
import { messageFrom, type InboxMessage } from './message.js';
import { resolveOptions, type InboxOptions, type ResolvedInboxOptions } from './options.js';
import { sanitizeError } from './sanitize.js';
import type { InboxStatements } from './sql/statement.js';
import { registerWorkerStatements } from './worker-statements.js';

/**
 * The handler: do the work through `transaction` (never commit or roll back: the worker does),
 * throw to fail, and stop early when `signal` fires (the lease was lost or the shutdown grace ran
 * out; whatever was written is rolled back).
 */
export type InboxHandler = (
  message: InboxMessage,
  transaction: InboxTransaction,
  signal: AbortSignal,
) => Promise<void>;

/** One claimed message while the worker holds it. */
interface Held {
  readonly message: InboxMessage;
  readonly token: string;
  readonly controller: AbortController;
  lost: boolean;
  abandoned: boolean;
  started: boolean;
  timer: ReturnType<typeof setInterval> | undefined;
  renewal: Promise<void> | undefined;
  /** Stops waiting for the handler (the shutdown grace ran out); set while the handler runs. */
  leave: (() => void) | undefined;
}

/** How a handler ended, or that the worker stopped waiting for it. */
type Handled = { readonly failed: false } | { readonly failed: true; readonly error: unknown };

/** The largest INT of SQL Server: the most milliseconds its DATEADD adds. */
const MAX_INT = 2_147_483_647;

/** The worker's own failures (not the handler's) that leave a message to its lease. */
class Abandon extends Error {}

/**
 * The pull worker (spec §9.3). The claim runs alone, committed before any handler; each
 * message's handler runs in a transaction of its own connection, and `complete` commits with
 * the handler's writes; a renewal on yet another connection keeps the lease, every leaseMs / 3.
 */
export class InboxWorker {
  readonly #connections: InboxConnectionSource;
  readonly #options: ResolvedInboxOptions;
  readonly #sql: InboxStatements;
  readonly #concurrency: number;
  readonly #renewEveryMs: number;
  #running = false;

  constructor(connections: InboxConnectionSource, options: InboxOptions) {
    if (connections === null || typeof connections?.connect !== 'function') {
      throw new TypeError('The connections must be a connection source with a connect() method.');
    }
    this.#connections = connections;
    this.#options = resolveOptions(options);
    checkAdapterDialect(connections, this.#options.dialect);
    if (this.#options.dialect === 'sqlserver' && this.#options.leaseMs > MAX_INT) {
      // The claim's lease is an INT there (DATEADD); a longer one would fail every claim.
      throw new RangeError(`On SQL Server the leaseMs must be at most ${MAX_INT}.`);
    }
    this.#sql = inboxSql(this.#options.dialect, this.#options.schema, {
      strictAggregateOrder: this.#options.strictAggregateOrder,
    });
    registerWorkerStatements(this.#sql);
    this.#concurrency = Math.min(this.#options.maxConcurrency, this.#options.batchSize);
    this.#renewEveryMs = Math.max(1, Math.floor(this.#options.leaseMs / 3));
  }

  /** Claims and handles messages until `signal` aborts; settles once every handler settled. */
  async run(handler: InboxHandler, signal?: AbortSignal): Promise<void> {
    if (typeof handler !== 'function') throw new TypeError('The handler must be a function.');
    if (this.#running) throw new Error('The worker is already running.');
    this.#running = true;
    try {
      const settings: LoopSettings = {
        options: this.#options,
        statements: this.#sql,
        connections: this.#connections,
        concurrency: this.#concurrency,
        renewEveryMs: this.#renewEveryMs,
      };
      await new Loop(settings, handler, signal).run();
    } finally {
      this.#running = false;
    }
  }
}

/** What one run of the loop needs from its worker. */
interface LoopSettings {
  readonly options: ResolvedInboxOptions;
  readonly statements: InboxStatements;
  readonly connections: InboxConnectionSource;
  readonly concurrency: number;
  readonly renewEveryMs: number;
}

class Loop {
  readonly #o: ResolvedInboxOptions;
  readonly #sql: InboxStatements;
  readonly #held = new Set<Held>();
  readonly #queue: Held[] = [];
  readonly #running = new Set<Promise<void>>();
  readonly #stop: AbortSignal;
  #wake: (() => void) | undefined;

  constructor(
    private readonly worker: LoopSettings,
    private readonly handler: InboxHandler,
    signal: AbortSignal | undefined,
  ) {
    this.#o = worker.options;
    this.#sql = worker.statements;
    this.#stop = signal ?? new AbortController().signal;
  }

  async run(): Promise<void> {
    const onStop = () => this.#nudge();
    this.#stop.addEventListener('abort', onStop);
    try {
      while (!this.#stop.aborted) {
        if (this.#held.size >= this.#o.batchSize || this.#queue.length >= this.worker.concurrency) {
          await this.#until(undefined);
          continue;
        }
        let claimed: Held[];
        try {
          claimed = await this.#claim(this.#o.batchSize - this.#held.size);
        } catch (error: unknown) {
          this.#o.logger.error('The claim failed.', { error: sanitizeError(error) });
          await this.#until(this.#o.pollIntervalMs);
          continue;
        }
        for (const held of claimed) {
          this.#held.add(held);
          this.#startRenewal(held);
          this.#queue.push(held);
        }
        this.#pump();
        // No polling storm: an empty claim waits the poll interval (a finished message or the
        // stop ends the wait early only when there is something to do).
        if (claimed.length === 0) await this.#sleep(this.#o.pollIntervalMs);
      }
    } finally {
      this.#stop.removeEventListener('abort', onStop);
    }
    await this.#shutdown();
  }

  async #claim(batch: number): Promise<Held[]> {
    const candLimit = Math.min(Math.max(3 * batch, 50), 500);
    const rows = await this.#withConnection((c) =>
      c.query(this.#sql.claim.text, [this.#o.source, batch, this.#o.leaseMs, candLimit]),
    );
    return rows.rows.map((row) => {
      const { message, token } = messageFrom(row, this.#o.schema, this.#o.dialect === 'sqlserver');
      return {
        message,
        token,
        controller: new AbortController(),
        lost: false,
        abandoned: false,
        started: false,
        timer: undefined,
        renewal: undefined,
        leave: undefined,
      };
    });
  }

  #pump(): void {
    while (this.#running.size < this.worker.concurrency && this.#queue.length > 0) {
      const held = this.#queue.shift()!;
      const done = this.#deliver(held).finally(() => {
        this.#running.delete(done);
        this.#finish(held);
        this.#pump();
      });
      this.#running.add(done);
    }
  }

  #finish(held: Held): void {
    void this.#stopRenewal(held);
    this.#held.delete(held);
    this.#nudge();
  }

  async #deliver(held: Held): Promise<void> {
    if (held.lost || held.abandoned) return;
    held.started = true;
    const log = this.#o.logger;
    const messageId = held.message.id;
    let connection: InboxConnection | undefined;
    let began = false;
    let discard = false;
    try {
      connection = await this.worker.connections.connect();
      const c = connection;
      const transaction = handlerTransaction(c);
      // Rolls back only a transaction that began; one that never began left nothing to undo.
      const rollback = () => (transaction.begun() ? c.rollback() : Promise.resolve());
      transaction.onBegin(() => (began = true));
      // A handler that never returns must not hold the worker past the shutdown grace (spec
      // §9.3): the wait ends when the grace does, and the handler is left behind.
      const abandonment = new Promise<'abandoned'>((resolve) => {
        held.leave = () => resolve('abandoned');
      });
      const handling = new Promise<void>((resolve) => {
        resolve(this.handler(held.message, transaction.view, held.controller.signal));
      }).then(
        (): Handled => ({ failed: false }),
        (error: unknown): Handled => ({ failed: true, error }),
      );
      const handled = await Promise.race([handling, abandonment]);
      held.leave = undefined;
      if (handled === 'abandoned') {
        transaction.close();
        await this.#stopRenewal(held);
        // Its connection may be inside the handler's transaction or one of its statements: it
        // is discarded (never committed), and the message waits for its lease to expire.
        discard = true;
        log.warn(
          'The handler had not returned when the shutdown grace ran out; it is left behind.',
          {
            messageId,
          },
        );
        log.info('The shutdown abandoned the message, so it spends no attempt.', { messageId });
        return;
      }
      const failed = handled.failed;
      const failure = handled.failed ? handled.error : undefined;
      transaction.close();
      // No renewal may race the fenced statements below: its UPDATE would wait on the row lock
      // and then find the message finished, which would read as a lost lease.
      await this.#stopRenewal(held);
      if (held.abandoned) {
        await rollback();
        log.info('The shutdown abandoned the message, so it spends no attempt.', { messageId });
        return;
      }
      if (held.lost) {
        await rollback();
        log.warn(
          failed
            ? 'The lease was lost, so nothing was written.'
            : 'The lease was lost, so the work was rolled back.',
          { messageId },
        );
        return;
      }
      if (!failed) {
        // A handler that ran no statement leaves the completion alone in its transaction.
        const done = await c.query(this.#sql.complete.text, [messageId, held.token]);
        if (done.rowCount === 1) {
          if (transaction.begun()) await c.commit();
        } else {
          await rollback();
          log.warn('The completion affected no row, so the work was rolled back.', { messageId });
        }
        return;
      }
      await rollback();
      await this.#fail(c, held, failure);
    } catch (error: unknown) {
      if (began) await connection?.rollback().catch(() => undefined);
      log.error('The message was abandoned.', { messageId, error: sanitizeError(error) });
    } finally {
      connection?.release(discard);
    }
  }

  /** The retry policy's decision, in a transaction of its own (autocommit) after the rollback. */
  async #fail(c: InboxConnection, held: Held, failure: unknown): Promise<void> {
    const log = this.#o.logger;
    const messageId = held.message.id;
    const error = sanitizeError(failure) ?? 'undefined';
    const action = this.#o.retryPolicy(held.message, failure);
    if (action?.type === 'retry') {
      // SQL Server's DATEADD takes an INT: a longer delay would fail the retry on every
      // delivery, so it waits the longest DATEADD can add (24.8 days) instead.
      const delayMs =
        this.#o.dialect === 'sqlserver' ? Math.min(action.delayMs, MAX_INT) : action.delayMs;
      const result = await c.query(this.#sql.retry.text, [delayMs, error, messageId, held.token]);
      if (result.rowCount === 0) {
        log.warn('The failure changed nothing, because the claim was lost.', { messageId });
      } else {
        log.warn('The message retries.', { messageId, delayMs, error });
      }
    } else if (action?.type === 'deadLetter') {
      const result = await c.query(this.#sql.dead.text, [error, messageId, held.token]);
      if (result.rowCount === 0) {
        log.warn('The failure changed nothing, because the claim was lost.', { messageId });
      } else {
        log.error('The message reached the dead letter.', { messageId, error });
      }
    } else {
      throw new Abandon('The retry policy returned neither retryAfter() nor deadLetter().');
    }
  }

  #startRenewal(held: Held): void {
    held.timer = setInterval(() => {
      if (held.renewal !== undefined || held.timer === undefined) return;
      held.renewal = this.#renew(held).finally(() => (held.renewal = undefined));
    }, this.worker.renewEveryMs);
  }

  async #renew(held: Held): Promise<void> {
    const messageId = held.message.id;
    try {
      const result = await this.#withConnection((c) =>
        c.query(this.#sql.renew.text, [this.#o.leaseMs, messageId, held.token]),
      );
      if (held.timer === undefined) return; // finished meanwhile: the answer is no news
      if (result.rowCount === 0) {
        held.lost = true;
        clearInterval(held.timer);
        held.timer = undefined;
        this.#o.logger.warn('The lease was lost to another worker.', { messageId });
        held.controller.abort(new Error('The lease was lost to another worker.'));
        if (!held.started) this.#drop(held);
      }
    } catch (error: unknown) {
      // Not a loss: the lease still runs, and the next renewal tries again.
      this.#o.logger.warn('The renewal failed.', { messageId, error: sanitizeError(error) });
    }
  }

  /** Stops the renewal timer and waits for a renewal in flight. */
  async #stopRenewal(held: Held): Promise<void> {
    if (held.timer !== undefined) clearInterval(held.timer);
    held.timer = undefined;
    await held.renewal;
  }

  /** A message that never started and will not: it leaves the queue and its lease expires. */
  #drop(held: Held): void {
    const index = this.#queue.indexOf(held);
    if (index >= 0) this.#queue.splice(index, 1);
    this.#finish(held);
  }

  async #shutdown(): Promise<void> {
    // Nothing new starts; queued messages are abandoned at once, running ones get the grace.
    for (const held of [...this.#queue]) {
      held.abandoned = true;
      this.#o.logger.info('The shutdown abandoned the message, so it spends no attempt.', {
        messageId: held.message.id,
      });
      this.#drop(held);
    }
    if (this.#running.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<'grace'>((resolve) => {
        timer = setTimeout(() => resolve('grace'), this.#o.shutdownGraceMs);
      });
      const settled = Promise.all([...this.#running]).then(() => 'settled' as const);
      if ((await Promise.race([settled, graceOver])) === 'grace') {
        for (const held of this.#held) {
          held.abandoned = true;
          void this.#stopRenewal(held);
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

  async #withConnection<T>(work: (c: InboxConnection) => Promise<T>): Promise<T> {
    const connection = await this.worker.connections.connect();
    try {
      return await work(connection);
    } finally {
      connection.release();
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
