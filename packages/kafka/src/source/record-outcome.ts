/**
 * What a handler's verdict means for the offset (spec §7.7): stored, duplicate, stored dead and
 * filtered are durably handled, so the offset may move past the record; a retry is not.
 */
import type { DeliveryVerdict } from '@queuebox/core';
import type { RecordOutcome } from './offset-ledger.js';

export function recordOutcome(verdict: DeliveryVerdict): RecordOutcome {
  return verdict.settle === 'ack' ? 'handled' : 'failed';
}
