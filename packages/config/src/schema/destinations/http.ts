/** `type: http` destinations (spec §6.1). */
import * as v from 'valibot';
import { destinationAuthBlock } from '../blocks.js';
import { headerName, headerValue, noDotSegment } from '../checks.js';
import { ms, text, textMap } from '../scalars.js';
import { destinationCommon } from './common.js';

export const httpDestination = {
  // The URL rule names where a credential belongs instead, so it is a destination rule.
  baseUrl: text,
  path: v.optional(v.pipe(text, noDotSegment), '/'),
  timeoutMs: ms(30_000),
  auth: destinationAuthBlock,
  ...destinationCommon,
  // Each static header goes on every request: one HTTP cannot carry would fail every message.
  headers: textMap(v.pipe(v.string(), headerName), v.pipe(text, headerValue)),
};
