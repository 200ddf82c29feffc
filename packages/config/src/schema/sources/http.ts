/** `type: http` sources, the webhook receiver (spec §7.5); the kind of a source without `type`. */
import { inboundAuthBlock } from '../blocks.js';
import { optStr, text } from '../scalars.js';
import { sourceShared } from './shared.js';

export const httpSource = {
  // Blank, shared and credential-header problems are source rules (they name other keys).
  path: text,
  idempotencyKeyHeader: optStr(),
  eventTypeHeader: optStr(),
  aggregateIdHeader: optStr(),
  auth: inboundAuthBlock,
  ...sourceShared,
};
