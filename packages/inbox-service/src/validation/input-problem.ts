/**
 * Why a received message cannot be stored as it came, for every source kind: the HTTP source
 * answers 400 with {@link problemText}, a broker source stores the message as a dead row with
 * that text and acknowledges it. The texts name what to fix, never a value: a value may be huge,
 * hold a NUL or a line break, or be a secret.
 */
import { MAX_JSON_DEPTH, type JsonTextProblem } from './json-text-check.js';

/** The attributes stored in 255-character columns. */
export type AttributeField = 'idempotencyKey' | 'aggregateId' | 'eventType';

export type InputProblem =
  /**
   * Empty, not UTF-8, not JSON, a compressed (encoded) body, or nested deeper than
   * MAX_JSON_DEPTH: HTTP's `Invalid JSON`; a broker's dead row names which.
   */
  | {
      readonly kind: 'invalid-json';
      readonly why: 'empty' | 'utf-8' | 'syntax' | 'too-deep';
      /** The body's encoding when it is a compressed one (`gzip`, `zstd`, ...). */
      readonly encoding?: string;
    }
  /** A broker message over `inbox.maxBodyBytes` (HTTP answers 413 before reading it). */
  | { readonly kind: 'too-large'; readonly bytes: number; readonly limit: number }
  /** JSON that PostgreSQL refuses to store: a NUL, a lone surrogate, a number out of range. */
  | {
      readonly kind: 'unstorable-body';
      readonly problem: Exclude<JsonTextProblem, { kind: 'too-deep' }>;
    }
  | { readonly kind: 'attribute-too-long'; readonly field: AttributeField; readonly limit: number }
  | {
      readonly kind: 'unstorable-attribute';
      readonly field: AttributeField;
      readonly character: UnstorableCharacter;
    }
  | {
      readonly kind: 'unstorable-header';
      /** The header name, cut to 100 characters. */
      readonly name: string;
      readonly character: UnstorableCharacter;
    };

export type UnstorableCharacter = 'nul' | 'lone-surrogate';

const FIELD_NAMES: Record<AttributeField, string> = {
  idempotencyKey: 'idempotency key',
  aggregateId: 'aggregate id',
  eventType: 'event type',
};

const CHARACTER_TEXTS: Record<UnstorableCharacter, string> = {
  nul: 'a NUL character (U+0000)',
  'lone-surrogate': 'half of a UTF-16 surrogate pair without the other half',
};

/** The HTTP source's 400 body text; `Invalid JSON` as the reference words it (spec §7.5). */
export function problemText(problem: InputProblem): string {
  switch (problem.kind) {
    case 'invalid-json':
      return 'Invalid JSON';
    case 'too-large':
      return `Request body exceeds ${problem.limit} bytes`;
    case 'unstorable-body':
      return bodyProblemText('The JSON body', problem.problem);
    case 'attribute-too-long':
      return `The ${FIELD_NAMES[problem.field]} is longer than ${problem.limit} characters.`;
    case 'unstorable-attribute':
      return `The ${FIELD_NAMES[problem.field]} holds ${CHARACTER_TEXTS[problem.character]}, which cannot be stored.`;
    case 'unstorable-header':
      return `The header '${problem.name}' holds ${CHARACTER_TEXTS[problem.character]}, which cannot be stored.`;
  }
}

/**
 * The reason a broker message became a dead row, stored in its `last_error` and logged: as
 * specific as HTTP's texts, but where HTTP answers one `Invalid JSON` (spec §7.5) this names
 * which of the five it was, since nobody is there to read an answer.
 */
export function deadRowText(problem: InputProblem): string {
  if (problem.kind === 'too-large') {
    return `The body is ${problem.bytes} bytes, more than inbox.maxBodyBytes (${problem.limit} bytes), so it is not stored: the row keeps its size and headers only.`;
  }
  if (problem.kind !== 'invalid-json') return problemText(problem);
  if (problem.encoding !== undefined) {
    return `The body is ${problem.encoding}-encoded (compressed), not JSON text; QueueBox stores JSON as it came and does not decompress: publish it uncompressed.`;
  }
  switch (problem.why) {
    case 'empty':
      return 'The body is empty, not JSON.';
    case 'utf-8':
      return 'The body is not valid UTF-8 text, so it is not JSON.';
    case 'syntax':
      return 'The body is not JSON: it does not parse as a JSON text.';
    case 'too-deep':
      return bodyProblemText('The JSON body', { kind: 'too-deep' });
  }
}

/** `subject` names the JSON: `The JSON body`, `The transform result`. */
export function bodyProblemText(subject: string, problem: JsonTextProblem): string {
  switch (problem.kind) {
    case 'too-deep':
      return `${subject} is nested deeper than ${MAX_JSON_DEPTH} levels.`;
    case 'nul':
      return `${subject} holds the escape \\u0000 (a NUL character), which cannot be stored.`;
    case 'lone-surrogate':
      return `${subject} holds the escape ${problem.escape}, half of a UTF-16 surrogate pair without the other half, which cannot be stored.`;
    case 'number-out-of-range':
      return `${subject} holds the number ${problem.number}, which is outside the range of numbers that can be stored.`;
  }
}
