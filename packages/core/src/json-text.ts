/**
 * JSON read as text, so that a number stays exactly as it was written. JSON.parse turns every
 * number into a double: 12345678901234567890 becomes 12345678901234567000, and two ids that
 * differ only past 2^53 become one. Where QueueBox must see a value as written (a key read by
 * JSONPath, a payload field in a template) it finds the value's source text here instead.
 *
 * Every function expects JSON text (JSON.parse accepted it, or the database wrote it). On other
 * text the answer means nothing, but no function throws, recurses or takes more than linear
 * time, so hostile input costs no more than reading it once.
 */
import type { JsonPathSegments } from './json-path.js';

/** Where a value's text starts and ends (exclusive) in its document. */
export interface JsonSpan {
  readonly start: number;
  readonly end: number;
}

const TAB = 9;
const LF = 10;
const CR = 13;
const SPACE = 32;
const QUOTE = 34;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACKET = 91;
const BACKSLASH = 92;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

function isSpace(code: number): boolean {
  return code === SPACE || code === LF || code === CR || code === TAB;
}

function skipSpace(text: string, pos: number): number {
  while (pos < text.length && isSpace(text.charCodeAt(pos))) pos += 1;
  return pos;
}

/** The index after the string whose opening quote is at `pos`. */
export function jsonStringEnd(text: string, pos: number): number {
  let quote = text.indexOf('"', pos + 1);
  while (quote !== -1) {
    // A quote ends the string unless an odd run of backslashes escapes it; each backslash is in
    // at most one run, so this stays linear.
    let backslashes = 0;
    for (let i = quote - 1; text.charCodeAt(i) === BACKSLASH; i -= 1) backslashes += 1;
    if ((backslashes & 1) === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/** The index after the value that starts at `pos` (a value, not whitespace). */
export function jsonValueEnd(text: string, pos: number): number {
  const first = text.charCodeAt(pos);
  if (first === QUOTE) return jsonStringEnd(text, pos);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null runs to the next delimiter.
    let i = pos + 1;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (
        code === COMMA ||
        code === CLOSE_BRACE ||
        code === CLOSE_BRACKET ||
        code === COLON ||
        isSpace(code)
      )
        break;
      i += 1;
    }
    return i;
  }
  // A container: count brackets outside strings, with no recursion however deep it is.
  let depth = 0;
  let i = pos;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = jsonStringEnd(text, i);
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
    i += 1;
  }
  return text.length;
}

/**
 * The span of the value a parsed JSONPath names (see json-path.ts), or undefined when there is no
 * such value. Reads like JSON.parse would: of two equal names in one object the last wins, and
 * a name written with escapes (`"\u0069d"`) is the name it decodes to.
 */
export function findJsonPath(text: string, segments: JsonPathSegments): JsonSpan | undefined {
  let start = skipSpace(text, 0);
  if (start >= text.length) return undefined;
  for (const segment of segments) {
    const open = text.charCodeAt(start);
    const found =
      segment.kind === 'property'
        ? open === OPEN_BRACE
          ? memberValue(text, start, segment.name)
          : undefined
        : open === OPEN_BRACKET
          ? elementValue(text, start, segment.index)
          : undefined;
    if (found === undefined) return undefined;
    start = found;
  }
  return { start, end: jsonValueEnd(text, start) };
}

/** The start of the value of the last member called `name` of the object at `open`. */
function memberValue(text: string, open: number, name: string): number | undefined {
  const nameHasBackslash = name.includes('\\');
  let found: number | undefined;
  let pos = skipSpace(text, open + 1);
  while (pos < text.length && text.charCodeAt(pos) === QUOTE) {
    const keyEnd = jsonStringEnd(text, pos);
    const matches = keyIs(text, pos, keyEnd, name, nameHasBackslash);
    pos = skipSpace(text, keyEnd);
    if (text.charCodeAt(pos) !== COLON) return found;
    pos = skipSpace(text, pos + 1);
    if (matches) found = pos;
    pos = skipSpace(text, jsonValueEnd(text, pos));
    if (text.charCodeAt(pos) !== COMMA) break;
    pos = skipSpace(text, pos + 1);
  }
  return found;
}

/** Whether the key string at [start, end) (quotes included) decodes to `name`. */
function keyIs(
  text: string,
  start: number,
  end: number,
  name: string,
  nameHasBackslash: boolean,
): boolean {
  const rawLength = end - start - 2;
  // Decoding escapes only shortens a key, so a shorter raw key can never match.
  if (rawLength < name.length) return false;
  if (rawLength === name.length) {
    // Equal lengths match only without escapes, i.e. as the same characters.
    return !nameHasBackslash && text.startsWith(name, start + 1);
  }
  const raw = text.slice(start, end);
  if (!raw.includes('\\')) return false;
  try {
    return JSON.parse(raw) === name;
  } catch {
    return false;
  }
}

/** The start of element `index` (negative: from the end) of the array at `open`. */
function elementValue(text: string, open: number, index: number): number | undefined {
  const starts: number[] = [];
  let pos = skipSpace(text, open + 1);
  if (text.charCodeAt(pos) === CLOSE_BRACKET) return undefined;
  for (let i = 0; pos < text.length; i += 1) {
    if (i === index) return pos;
    if (index < 0) starts.push(pos);
    pos = skipSpace(text, jsonValueEnd(text, pos));
    if (text.charCodeAt(pos) !== COMMA) break;
    pos = skipSpace(text, pos + 1);
  }
  return index < 0 ? starts[starts.length + index] : undefined;
}

const INTEGER = /^-?\d+$/;

/**
 * The text of a number token under QueueBox's rule (spec §7.2, §5.3): an integer token is its
 * exact digits, however many (`12345678901234567890` stays so; `-0` is `0`, as JSON.stringify
 * writes it); any other number is its JavaScript JSON form (`1.50` → `1.5`, `515725.0` →
 * `515725`, `1e30` → `1e+30`). Null for a number a double cannot hold (`1.5e400`).
 */
export function jsonNumberText(token: string): string | null {
  if (INTEGER.test(token)) return token === '-0' ? '0' : token;
  const value = Number(token);
  return Number.isFinite(value) ? JSON.stringify(value) : null;
}

/**
 * The text of the scalar at `span` as an attribute or a template renders it: a string decoded,
 * a number under {@link jsonNumberText}, `true`/`false`; an object or an array as compact JSON
 * text with every number as written. Null for JSON null.
 */
export function jsonSourceText(text: string, span: JsonSpan): string | null {
  const first = text.charCodeAt(span.start);
  if (first === QUOTE) return decodeString(text, span);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) return compactJson(text, span);
  const token = text.slice(span.start, span.end);
  if (token === 'null') return null;
  if (token === 'true' || token === 'false') return token;
  return jsonNumberText(token);
}

function decodeString(text: string, span: JsonSpan): string | null {
  const inner = text.slice(span.start + 1, span.end - 1);
  if (!inner.includes('\\')) return inner;
  try {
    return JSON.parse(text.slice(span.start, span.end)) as string;
  } catch {
    return null;
  }
}

/** The value at `span` without whitespace outside strings. */
export function compactJson(text: string, span: JsonSpan): string {
  let out = '';
  let copied = span.start;
  let i = span.start;
  while (i < span.end) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = jsonStringEnd(text, i);
    } else if (isSpace(code)) {
      out += text.slice(copied, i);
      i = skipSpace(text, i);
      copied = i;
    } else {
      i += 1;
    }
  }
  return out + text.slice(copied, Math.min(span.end, text.length));
}
