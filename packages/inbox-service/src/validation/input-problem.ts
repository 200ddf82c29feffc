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
  /** Not UTF-8, not JSON, or nested deeper than MAX_JSON_DEPTH: HTTP's `Invalid JSON`. */
  | { readonly kind: 'invalid-json'; readonly why: 'utf-8' | 'syntax' | 'too-deep' }
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
