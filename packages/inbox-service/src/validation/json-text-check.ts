/**
 * What JSON.parse accepts but the inbox cannot store as it is: JSON nested deeper than
 * {@link MAX_JSON_DEPTH}, the escape `\u0000` (a NUL character, which PostgreSQL's `jsonb` and
 * `text` refuse, in a name or a value), an escaped half of a surrogate pair without its other half
 * (`\ud800`, refused as well), and a number outside the range of PostgreSQL's `numeric`, which
 * holds every `jsonb` number. One pass over text that JSON.parse accepted, strings skipped with
 * indexOf; nothing here recurses, so no input can exhaust the stack.
 */
import { jsonStringEnd } from '@queuebox/core';

/**
 * The deepest nesting of arrays and objects accepted (`[[1]]` is 2). Jackson, the reference's
 * parser, refuses documents deeper than 1000 by default since 2.15; PostgreSQL accepts far more
 * (about 10,000 at its default `max_stack_depth`), so every accepted document is stored.
 */
export const MAX_JSON_DEPTH = 1000;

export type JsonTextProblem =
  | { readonly kind: 'too-deep' }
  | { readonly kind: 'nul' }
  /** `escape` is the six characters as written, e.g. `\ud800`. */
  | { readonly kind: 'lone-surrogate'; readonly escape: string }
  /** `number` is the token as written, cut to 40 characters. */
  | { readonly kind: 'number-out-of-range'; readonly number: string };

const QUOTE = 34;
const PLUS = 43;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const OPEN_BRACKET = 91;
const BACKSLASH = 92;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const LOWER_E = 101;
const UPPER_E = 69;
const LOWER_U = 117;

const TOO_DEEP: JsonTextProblem = { kind: 'too-deep' };
const NUL: JsonTextProblem = { kind: 'nul' };

/**
 * A number with an exponent where a number can stand (after `:`, `,`, `[` or whitespace; a body
 * that is a bare number is scanned anyway). It may match inside a string too; the exact scan then
 * decides. (An `^` alternative here made the test much slower on a string-heavy body.)
 */
const EXPONENT_NUMBER = /[:,[\s]-?\d+(?:\.\d+)?[eE][+-]?\d/;
const BARE_NUMBER = /^\s*[-\d]/;
/** Below this length no number without an exponent can leave numeric's range. */
const SHORT_TEXT = 16_384;

/**
 * The first problem of JSON text (which JSON.parse accepted), or null. The exact scan is a
 * JavaScript loop, a large part of JSON.parse's cost on number-dense text, so it runs only when
 * native pre-checks cannot rule a problem out: a NUL or a half pair needs a `\u` escape, depth
 * past the bound needs that many opening brackets, a number out of range an exponent or a very
 * long text.
 */
export function checkJsonText(text: string, maxDepth = MAX_JSON_DEPTH): JsonTextProblem | null {
  if (text.includes('\\u')) {
    const problem = checkEscapes(text);
    if (problem !== null) return problem;
  }
  const mayBeDeep = text.length > 2 * maxDepth && openingBrackets(text, maxDepth) > maxDepth;
  const mayHoldWideNumber =
    text.length > SHORT_TEXT || EXPONENT_NUMBER.test(text) || BARE_NUMBER.test(text);
  return mayBeDeep || mayHoldWideNumber ? checkStructure(text, maxDepth) : null;
}

/** How many `[` and `{` the text holds (inside strings too), counting no further than `limit` + 1. */
function openingBrackets(text: string, limit: number): number {
  let count = 0;
  for (const bracket of ['[', '{']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      count += 1;
      if (count > limit) return count;
    }
  }
  return count;
}

/** Nesting depth and numbers, outside strings. */
function checkStructure(text: string, maxDepth: number): JsonTextProblem | null {
  const length = text.length;
  let depth = 0;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = stringEnd(text, i + 1);
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) return TOO_DEEP;
      i += 1;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      i += 1;
    } else if (code === MINUS || (code >= ZERO && code <= NINE)) {
      const start = i;
      let exponent = false;
      i += 1;
      while (i < length) {
        const c = text.charCodeAt(i);
        if (c >= ZERO && c <= NINE) i += 1;
        else if (c === DOT || c === PLUS || c === MINUS) i += 1;
        else if (c === LOWER_E || c === UPPER_E) {
          exponent = true;
          i += 1;
        } else break;
      }
      // Without an exponent, a token this short holds fewer digits than either bound.
      if ((exponent || i - start > SHORT_TEXT) && !numericHolds(text.slice(start, i))) {
        return { kind: 'number-out-of-range', number: cut(text.slice(start, i)) };
      }
    } else {
      i += 1;
    }
  }
  return null;
}

/**
 * The index after the closing quote of the string whose content starts at `from`. Short strings
 * (most names and values) are walked here; a long one is left to indexOf after 32 characters,
 * where a native search beats a loop.
 */
function stringEnd(text: string, from: number): number {
  const stop = Math.min(text.length, from + 32);
  let i = from;
  while (i < stop) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) return i + 1;
    i += code === BACKSLASH ? 2 : 1;
  }
  return i >= text.length ? text.length : jsonStringEnd(text, i - 1);
}

/**
 * Every `\u` escape: valid JSON has backslashes only inside strings, and a backslash starts an
 * escape exactly when the run of backslashes it ends is odd (`\\u0000` is a backslash and the
 * text `u0000`).
 */
function checkEscapes(text: string): JsonTextProblem | null {
  let at = text.indexOf('\\u');
  while (at !== -1) {
    let run = 1;
    while (text.charCodeAt(at - run) === BACKSLASH) run += 1;
    let next = at + 2;
    if ((run & 1) === 1) {
      const unit = hex4(text, at + 2);
      if (unit === 0) return NUL;
      next = at + 6;
      if (unit >= 0xd800 && unit <= 0xdfff) {
        const pairs =
          unit <= 0xdbff &&
          text.charCodeAt(at + 6) === BACKSLASH &&
          text.charCodeAt(at + 7) === LOWER_U &&
          isLowSurrogate(hex4(text, at + 8));
        if (!pairs) return { kind: 'lone-surrogate', escape: text.slice(at, at + 6) };
        next = at + 12;
      }
    }
    at = text.indexOf('\\u', next);
  }
  return null;
}

function hex4(text: string, at: number): number {
  return Number.parseInt(text.slice(at, at + 4), 16);
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

function cut(token: string): string {
  return token.length > 40 ? `${token.slice(0, 37)}...` : token;
}

/** `numeric` limits (PostgreSQL 15 numeric.c): digits before the point and the display scale. */
const MAX_LEADING_EXPONENT = 131_071;
const MAX_SCALE = 16_383;
const MAX_EXPONENT = 1_073_741_823;

/**
 * Whether PostgreSQL's `numeric` (and so `jsonb`) takes a JSON number token: its scale (digits
 * after the point minus the exponent) is at most 16383, and its first non-zero digit stands at
 * most 131071 places before the point (`1e131071` is the largest power of ten). Zero takes any
 * exponent that leaves the scale in bounds (`0e99999999` is 0; `0e-99999999` is refused).
 */
export function numericHolds(token: string): boolean {
  let p = token.charCodeAt(0) === MINUS ? 1 : 0;
  const intStart = p;
  while (isDigit(token.charCodeAt(p))) p += 1;
  const intDigits = token.slice(intStart, p);
  let fraction = '';
  if (token.charCodeAt(p) === DOT) {
    const start = p + 1;
    p = start;
    while (isDigit(token.charCodeAt(p))) p += 1;
    fraction = token.slice(start, p);
  }
  let exponent = 0;
  if (token.charCodeAt(p) === LOWER_E || token.charCodeAt(p) === UPPER_E) {
    exponent = Number(token.slice(p + 1));
    if (!Number.isFinite(exponent) || Math.abs(exponent) >= MAX_EXPONENT) return false;
  }
  if (Math.max(0, fraction.length - exponent) > MAX_SCALE) return false;
  const digits = intDigits + fraction;
  const first = firstNonZero(digits);
  if (first === -1) return true;
  return intDigits.length - 1 - first + exponent <= MAX_LEADING_EXPONENT;
}

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

function firstNonZero(digits: string): number {
  for (let i = 0; i < digits.length; i += 1) if (digits.charCodeAt(i) !== ZERO) return i;
  return -1;
}
