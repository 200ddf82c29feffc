import { QueueBoxError } from '@queuebox/core';

/**
 * A failure of `queuebox dev` whose message is already the whole answer for the person at the
 * terminal: what failed, the port or directory it concerns, and what to do about it.
 */
export class DevError extends QueueBoxError {
  // Its own name: `queuebox dev` tells it from other failures by it, and the text shows it.
  override readonly name = 'DevError';

  constructor(message: string) {
    super('startup_failed', message);
  }
}
