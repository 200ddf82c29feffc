/**
 * Reads a received body as JSON for every source kind: strict UTF-8 (a malformed byte refuses the
 * body instead of turning into U+FFFD, which would store an altered message), then JSON.parse,
 * then the storability checks of json-text-check.ts. The text is kept: it is what the inbox
 * stores when no transform runs, so PostgreSQL parses the sender's own digits.
 */
import type { Json } from '@queuebox/core';
import { compressedEncoding } from './body-encoding.js';
import type { InputProblem } from './input-problem.js';
import { checkJsonText, MAX_JSON_DEPTH } from './json-text-check.js';

export interface ReceivedJson {
  readonly ok: true;
  /** The body as text, without a leading byte order mark. */
  readonly text: string;
  /** JSON.parse's value (numbers as doubles): what JSONPath, expressions and transforms read. */
  readonly value: Json;
}

export type ReceivedJsonResult =
  ReceivedJson | { readonly ok: false; readonly problem: InputProblem };

// `fatal`: a byte sequence that is not UTF-8 throws; the BOM is dropped (ignoreBOM false).
const DECODER = new TextDecoder('utf-8', { fatal: true });

export function readReceivedJson(body: Uint8Array): ReceivedJsonResult {
  let text: string;
  try {
    text = DECODER.decode(body);
  } catch {
    return notJson(body, 'utf-8');
  }
  let value: Json;
  try {
    // V8's JSON.parse does not recurse, so a deep body costs its length here, not the stack.
    value = JSON.parse(text) as Json;
  } catch {
    return notJson(body, text.trim() === '' ? 'empty' : 'syntax');
  }
  const problem = checkJsonText(text, MAX_JSON_DEPTH);
  if (problem === null) return { ok: true, text, value };
  if (problem.kind === 'too-deep') {
    return { ok: false, problem: { kind: 'invalid-json', why: 'too-deep' } };
  }
  return { ok: false, problem: { kind: 'unstorable-body', problem } };
}

/** Why a body is not JSON; a compressed body says so, whatever its bytes did to the parser. */
function notJson(body: Uint8Array, why: 'empty' | 'utf-8' | 'syntax'): ReceivedJsonResult {
  const encoding = why === 'empty' ? undefined : compressedEncoding(body);
  return {
    ok: false,
    problem: { kind: 'invalid-json', why, ...(encoding === undefined ? {} : { encoding }) },
  };
}
