import { QueueBoxError } from '@queuebox/core';

/** Abort reason of a message whose lease renewal found the claim gone (spec §4.4). */
export class ClaimLostError extends QueueBoxError {
  constructor() {
    super('claim_lost', 'Claim ownership lost');
    this.name = 'ClaimLostError';
  }
}

/** Abort reason of a message still running when the shutdown timeout elapsed (spec §4.6). */
export class ShutdownAbandonedError extends QueueBoxError {
  constructor() {
    super('internal', 'The poller stopped before the message finished');
    this.name = 'ShutdownAbandonedError';
  }
}
