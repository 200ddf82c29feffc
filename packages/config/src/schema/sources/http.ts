/** `type: http` sources, the webhook receiver (spec §7.5); the kind of a source without `type`. */
import * as v from 'valibot';
import { inboundAuthBlock } from '../blocks.js';
import { notBlank } from '../checks.js';
import { optStr, text } from '../scalars.js';
import { sourceShared } from './shared.js';

export const httpSource = {
  // A path another source has is a source rule (it names the other source).
  path: v.pipe(text, notBlank),
  idempotencyKeyHeader: optStr(),
  eventTypeHeader: optStr(),
  aggregateIdHeader: optStr(),
  auth: inboundAuthBlock,
  ...sourceShared,
};
