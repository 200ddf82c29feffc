/**
 * A source transform's result as the payload to store. JSONata can build what JSON.parse never
 * accepts from a sender (a string with a NUL, a half surrogate pair from `$substring`, nesting
 * without bound), so the result passes the body checks too; a result that fails them is a
 * failed transform, handled by the source's `onError` like any other.
 */
import { JsonPayload, type Json } from '@queuebox/core';
import { bodyProblemText } from './input-problem.js';
import { checkJsonText } from './json-text-check.js';

export type TransformResultPayload =
  | { readonly ok: true; readonly payload: JsonPayload }
  | { readonly ok: false; readonly reason: string };

const SUBJECT = 'The transform result';

export function transformResultPayload(value: Json): TransformResultPayload {
  let payload: JsonPayload;
  try {
    payload = JsonPayload.fromValue(value);
  } catch {
    // JSON.stringify recurses: only a structure too deep for the stack throws here.
    return { ok: false, reason: bodyProblemText(SUBJECT, { kind: 'too-deep' }) };
  }
  const problem = checkJsonText(payload.text);
  return problem === null
    ? { ok: true, payload }
    : { ok: false, reason: bodyProblemText(SUBJECT, problem) };
}
