/**
 * Operator-facing texts of the relay (spec §8.3, §15). Operators grep and alert on these, so
 * the wording keeps the reference's key phrases; tests pin them. Every `reason` is sanitized by
 * the caller.
 */
export const relayLogTexts = {
  cycleFailed: (reason: string) =>
    `The relay cycle failed. The next cycle retries. Reason: ${reason}`,
  /** Not the reference's: the end of an outage, after which a failure is an ERROR again. */
  cycleRecovered: (failures: number) =>
    `The relay cycle succeeded again after ${failures} failure(s).`,
  emptyTopic: (source: string, id: string) =>
    `The topic template of source '${source}' rendered empty for inbox message ${id}, so no destination ` +
    `can receive it and QueueBox marks it dead. Set 'sources.${source}.topic', or set the event type path.`,
  claimLost: (id: string, action: string) =>
    `The claim on inbox message ${id} was lost, so QueueBox did not ${action} it. Another replica or the ` +
    `reclaim step takes it over. Raise 'inbox.relay.claimTimeoutMs' above the slowest forward.`,
  batchFailed: (count: number, reason: string) =>
    `Forwarding a batch of ${count} inbox messages failed. QueueBox forwards them one at a time. Reason: ${reason}`,
  forwardFailed: (id: string, reason: string) =>
    `Forwarding inbox message ${id} failed. It stays claimed until its lease expires, and the reclaim ` +
    `step returns it. Reason: ${reason}`,
  renewFailed: (count: number, reason: string) =>
    `Renewing the claims of ${count} inbox message(s) failed. The next renewal retries. Reason: ${reason}`,
} as const;
