/**
 * Operator-facing texts of the poller (spec §15). Operators grep and alert on these, so the
 * wording stays the reference's; tests pin them. Every `reason` is sanitized by the caller.
 */
export const logTexts = {
  cycleFailed: (reason: string) =>
    `The poll cycle failed. The next cycle retries. Reason: ${reason}`,
  /** Not the reference's: the end of an outage, after which a failure is an ERROR again. */
  cycleRecovered: (failures: number) =>
    `The poll cycle succeeded again after ${failures} failure(s).`,
  retryScheduled: (id: string, attempt: number, delayMs: number, reason: string) =>
    `Publishing message ${id} failed on attempt ${attempt}. The retry runs in ${delayMs} ms. Reason: ${reason}`,
  attemptsExhausted: (id: string, attempt: number, reason: string) =>
    `Message ${id} reached ${attempt} attempts and is now dead. Reason: ${reason}`,
  deadLettered: (id: string, reason: string) => `Message ${id} is now dead. Reason: ${reason}`,
  publishedButLost: (id: string) =>
    `Message ${id} was published, but the claim was already lost, so the destination receives a duplicate. ` +
    `Raise 'outbox.claimTimeoutMs' above the slowest publish.`,
  claimLost: (id: string, action: string) =>
    `The claim on message ${id} was lost, so QueueBox did not ${action}. Another replica or the reclaim step ` +
    `delivers it. Raise 'outbox.claimTimeoutMs' above the slowest publish.`,
  sentWriteRetried: (id: string, delayMs: number, reason: string) =>
    `Message ${id} was published, but marking it sent failed; trying again in ${delayMs} ms. Reason: ${reason}`,
  processingFailed: (id: string, reason: string) =>
    `Processing message ${id} failed unexpectedly. Reason: ${reason}`,
  shutdownAbandoned: (timeoutMs: number, count: number) =>
    `The shutdown timeout of ${timeoutMs} ms elapsed. QueueBox abandoned ${count} in-flight message(s). ` +
    `The reclaim step recovers them.`,
  releaseFailed: (count: number, reason: string) =>
    `Releasing ${count} claimed but unstarted message(s) failed. The reclaim step recovers them. Reason: ${reason}`,
} as const;

/** Reasons written to `last_error` for rows that go dead without a delivery attempt (spec §4.3). */
export const deadReasons = {
  noRoute: (topic: string) => `No route matches topic '${topic}'`,
  noPublisher: (destination: string) => `No publisher supports destination '${destination}'`,
  transformDead: 'Transform dead-lettered the message',
} as const;

/** Failure texts the poller itself produces (the publishers produce their own). */
export const failureReasons = {
  transform: (reason: string) => `Transform failed: ${reason}`,
  blankAddress: (destination: string) =>
    `The address of destination '${destination}' rendered empty`,
} as const;
