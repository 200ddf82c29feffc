/**
 * The extracted attributes and the headers against the columns they go into: the idempotency
 * key, aggregate id and event type are VARCHAR(255), which PostgreSQL counts in characters (code
 * points: an emoji is one, not two UTF-16 units); text and `jsonb` refuse a NUL character; and a
 * lone surrogate would silently become U+FFFD on the way to the database (the driver encodes
 * UTF-8), storing a key the sender never sent. A store failure would answer 500, which tells the
 * sender to retry a message that can never be stored.
 */
import type { Headers } from '@queuebox/core';
import type { AttributeField, InputProblem, UnstorableCharacter } from './input-problem.js';

/** The width of the idempotency key, aggregate id and event type columns (spec §3.3, §7.2). */
export const MAX_ATTRIBUTE_LENGTH = 255;

export interface CheckedAttributes {
  readonly idempotencyKey: string;
  readonly aggregateId: string | null;
  readonly eventType: string | null;
}

const FIELDS: readonly AttributeField[] = ['idempotencyKey', 'aggregateId', 'eventType'];

/** The first attribute that cannot be stored, in column order, or null. */
export function checkAttributes(attributes: CheckedAttributes): InputProblem | null {
  for (const field of FIELDS) {
    const value = attributes[field];
    if (value === null) continue;
    if (value.length > MAX_ATTRIBUTE_LENGTH && codePoints(value) > MAX_ATTRIBUTE_LENGTH) {
      return { kind: 'attribute-too-long', field, limit: MAX_ATTRIBUTE_LENGTH };
    }
    const character = unstorableCharacter(value);
    if (character !== null) return { kind: 'unstorable-attribute', field, character };
  }
  return null;
}

/** The first header whose name or value cannot be stored in the `headers` jsonb, or null. */
export function checkHeaders(headers: Headers): InputProblem | null {
  for (const name in headers) {
    const character = unstorableCharacter(name) ?? unstorableCharacter(headers[name] ?? '');
    if (character !== null) {
      return { kind: 'unstorable-header', name: printableName(name), character };
    }
  }
  return null;
}

const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function unstorableCharacter(value: string): UnstorableCharacter | null {
  if (value.includes('\u0000')) return 'nul';
  // The first test is the cheap one: almost no value holds a surrogate at all.
  if (SURROGATE.test(value) && LONE_SURROGATE.test(value)) return 'lone-surrogate';
  return null;
}

function codePoints(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    count += 1;
  }
  return count;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** A header name for the answer: control characters and lone surrogates as `?`, at most 100. */
function printableName(name: string): string {
  const clean = name.replace(CONTROL, '?').replace(LONE_SURROGATES, '?');
  return clean.length > 100 ? `${clean.slice(0, 97)}...` : clean;
}
