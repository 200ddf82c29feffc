import { sanitizeError } from '../sanitize.js';
import { withConnection, type Held, type LoopSettings } from './held.js';

/**
 * Keeps each held message's lease: a renewal on a connection of its own every leaseMs / 3, one
 * in flight at a time. A renewal that changes no row means another worker has the message: the
 * handler's signal fires, and a message that never started is handed to `onLostBeforeStart`.
 */
export class LeaseRenewal {
  constructor(
    private readonly settings: LoopSettings,
    private readonly onLostBeforeStart: (held: Held) => void,
  ) {}

  start(held: Held): void {
    held.timer = setInterval(() => {
      if (held.renewal !== undefined || held.timer === undefined) return;
      held.renewal = this.#renew(held).finally(() => (held.renewal = undefined));
    }, this.settings.renewEveryMs);
  }

  /** Stops the renewal timer and waits for a renewal in flight. */
  async stop(held: Held): Promise<void> {
    if (held.timer !== undefined) clearInterval(held.timer);
    held.timer = undefined;
    await held.renewal;
  }

  async #renew(held: Held): Promise<void> {
    const { options, statements } = this.settings;
    const messageId = held.message.id;
    try {
      const result = await withConnection(this.settings.connections, (c) =>
        c.query(statements.renew.text, [options.leaseMs, messageId, held.token]),
      );
      if (held.timer === undefined) return; // finished meanwhile: the answer is no news
      if (result.rowCount === 0) {
        held.lost = true;
        clearInterval(held.timer);
        held.timer = undefined;
        options.logger.warn('The lease was lost to another worker.', { messageId });
        held.controller.abort(new Error('The lease was lost to another worker.'));
        if (!held.started) this.onLostBeforeStart(held);
      }
    } catch (error: unknown) {
      // Not a loss: the lease still runs, and the next renewal tries again.
      options.logger.warn('The renewal failed.', { messageId, error: sanitizeError(error) });
    }
  }
}
