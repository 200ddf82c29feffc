import type { InboxConnection, InboxTransaction } from '../connections.js';
import { handlerTransaction } from '../handler-transaction.js';
import type { InboxMessage } from '../message.js';
import { sanitizeError } from '../sanitize.js';
import { ABANDONED_BY_SHUTDOWN, MAX_INT, type Held, type LoopSettings } from './held.js';
import type { LeaseRenewal } from './lease-renewal.js';

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

/** How a handler ended, or that the worker stopped waiting for it. */
type Handled = { readonly failed: false } | { readonly failed: true; readonly error: unknown };

/**
 * One message's delivery: its handler in a transaction of its own connection, then the outcome
 * (spec §9.3). `complete` commits with the handler's writes; a failure is rolled back and the
 * retry policy's decision written after it. Every outcome statement is fenced by the claim token.
 */
export class Delivery {
  constructor(
    private readonly settings: LoopSettings,
    private readonly handler: InboxHandler,
    private readonly renewal: LeaseRenewal,
  ) {}

  async deliver(held: Held): Promise<void> {
    if (held.lost || held.abandoned) return;
    held.started = true;
    const log = this.settings.options.logger;
    const messageId = held.message.id;
    let connection: InboxConnection | undefined;
    let began = false;
    let discard = false;
    try {
      connection = await this.settings.connections.connect();
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
        await this.renewal.stop(held);
        // Its connection may be inside the handler's transaction or one of its statements: it
        // is discarded (never committed), and the message waits for its lease to expire.
        discard = true;
        log.warn(
          'The handler had not returned when the shutdown grace ran out; it is left behind.',
          {
            messageId,
          },
        );
        log.info(ABANDONED_BY_SHUTDOWN, { messageId });
        return;
      }
      const failed = handled.failed;
      const failure = handled.failed ? handled.error : undefined;
      transaction.close();
      // No renewal may race the fenced statements below: its UPDATE would wait on the row lock
      // and then find the message finished, which would read as a lost lease.
      await this.renewal.stop(held);
      if (held.abandoned) {
        await rollback();
        log.info(ABANDONED_BY_SHUTDOWN, { messageId });
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
        const done = await c.query(this.settings.statements.complete.text, [messageId, held.token]);
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
    const { options, statements } = this.settings;
    const log = options.logger;
    const messageId = held.message.id;
    const error = sanitizeError(failure) ?? 'undefined';
    const action = options.retryPolicy(held.message, failure);
    if (action?.type === 'retry') {
      // SQL Server's DATEADD takes an INT: a longer delay would fail the retry on every
      // delivery, so it waits the longest DATEADD can add (24.8 days) instead.
      const delayMs =
        options.dialect === 'sqlserver' ? Math.min(action.delayMs, MAX_INT) : action.delayMs;
      const result = await c.query(statements.retry.text, [delayMs, error, messageId, held.token]);
      if (result.rowCount === 0) {
        log.warn('The failure changed nothing, because the claim was lost.', { messageId });
      } else {
        log.warn('The message retries.', { messageId, delayMs, error });
      }
    } else if (action?.type === 'deadLetter') {
      const result = await c.query(statements.dead.text, [error, messageId, held.token]);
      if (result.rowCount === 0) {
        log.warn('The failure changed nothing, because the claim was lost.', { messageId });
      } else {
        log.error('The message reached the dead letter.', { messageId, error });
      }
    } else {
      // The worker's own failure, not the handler's: the message is left to its lease (the
      // catch in `deliver` logs it as abandoned).
      throw new Error('The retry policy returned neither retryAfter() nor deadLetter().');
    }
  }
}
