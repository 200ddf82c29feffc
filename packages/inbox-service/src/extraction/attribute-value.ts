import type { Json } from '@queuebox/core';

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
