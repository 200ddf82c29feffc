import {
  findJsonPath,
  jsonNumberText,
  readJsonPath,
  type Json,
  type JsonPathSegments,
} from '@queuebox/core';

/**
 * Turns what a path or a key expression found into an attribute value (spec §7.2, open question
 * 7): a string as it is, a number in its JSON text form (a whole number has no decimal point, so
 * `515725.0` in the body gives `515725`), a boolean as `true`/`false`; the result is trimmed.
 * An object, an array, null, nothing found or a blank text is no value, because none of them
 * names one message.
 */
export function attributeValue(value: Json | undefined): string | null {
  let text: string;
  switch (typeof value) {
    case 'string':
      text = value;
      break;
    case 'number':
      if (!Number.isFinite(value)) return null;
      // JSON text form: `1.5`, `515725`, `1e+21`; -0 prints as `0`, as in JSON.stringify.
      text = JSON.stringify(value);
      break;
    case 'boolean':
      text = value ? 'true' : 'false';
      break;
    default:
      return null;
  }
  text = text.trim();
  return text === '' ? null : text;
}

/** Doubles are exact up to here; a number this large may have lost digits in JSON.parse. */
const EXACT_LIMIT = 2 ** 53;

/**
 * The value of a JSONPath in the body (spec §7.2). A JSON integer keeps every digit, as the
 * reference's parser kept big integers exact: 9007199254740993 is not 9007199254740992, so two
 * events whose ids differ only past 2^53 stay two rows. Only a number at or past 2^53 is read
 * again from the text (every smaller one prints exactly), so a path costs nothing extra in the
 * common case; a number that is not an integer token keeps the JSON form rule (`1e30` → `1e+30`).
 */
export function pathValue(
  segments: JsonPathSegments,
  message: { readonly body: Json; readonly text: string },
): string | null {
  const value = readJsonPath(segments, message.body);
  if (typeof value !== 'number' || Math.abs(value) < EXACT_LIMIT) return attributeValue(value);
  const span = findJsonPath(message.text, segments);
  if (span === undefined) return attributeValue(value);
  const text = jsonNumberText(message.text.slice(span.start, span.end));
  return text === null || text.trim() === '' ? null : text.trim();
}
