/**
 * AMQP header values as the inbox stores them (spec §7.6): text stays text; numbers and booleans
 * in their string form; a timestamp as an ISO-8601 instant; a nested table or array as JSON text;
 * a byte array as UTF-8 text, or `base64:<b64>` when the bytes are not UTF-8; a null value
 * dropped.
 *
 * A 64-bit integer arrives as a BigInt (exact-headers.ts) and keeps every digit, at the top level
 * and inside a table or array (as a JSON number). What amqplib hands over limits this in two
 * places (docs/decisions.md): it decodes a long string as UTF-8 itself, replacing bytes that are
 * not UTF-8 with U+FFFD, so only a byte array (`x`) can come out as `base64:`; and an integer and
 * a double of the same value print alike (`2`, where Java printed `2.0` for a double).
 */
import { setOwn } from '@queuebox/core';

export type AmqpHeaders = Readonly<Record<string, unknown>>;

/** Every header with a value, converted; names as they came. */
export function convertHeaders(headers: AmqpHeaders | undefined): Record<string, string> {
  const converted: Record<string, string> = {};
  if (headers === undefined || headers === null) return converted;
  for (const name of Object.keys(headers)) {
    const text = headerText(headers[name]);
    if (text === null) continue;
    setOwn(converted, name, text);
  }
  return converted;
}

/** One header value as text; null for a value to drop (AMQP void). */
export function headerText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return null;
  }
  if (value instanceof Uint8Array) return bytesText(value);
  const typed = typedValue(value);
  if (typed !== undefined) return typeof typed === 'string' ? typed : JSON.stringify(typed);
  return jsonText(jsonValue(value));
}

type JsonLike =
  null | boolean | number | bigint | string | JsonLike[] | { [key: string]: JsonLike };

/** JSON.stringify, except that a BigInt is written as its digits (a JSON number). */
function jsonText(value: JsonLike): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value).map(
      (key) => `${JSON.stringify(key)}:${jsonText(value[key]!)}`,
    );
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A value inside a table or array, for its JSON text. */
function jsonValue(value: unknown): JsonLike {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value;
    case 'object':
      break;
    default:
      return null;
  }
  if (value instanceof Uint8Array) return bytesText(value);
  if (Array.isArray(value)) return value.map(jsonValue);
  const typed = typedValue(value);
  if (typed !== undefined) return typed;
  const table: Record<string, JsonLike> = {};
  for (const key of Object.keys(value)) {
    setOwn(table, key, jsonValue((value as Record<string, unknown>)[key]));
  }
  return table;
}

/** amqplib's `{'!': type, value}` for the AMQP types JavaScript has none of. */
function typedValue(value: object): string | number | undefined {
  if (!Object.hasOwn(value, '!')) return undefined;
  const { '!': type, value: inner } = value as { '!': unknown; value: unknown };
  if (type === 'timestamp' && typeof inner === 'number') return instantText(inner);
  if (type === 'decimal' && typeof inner === 'object' && inner !== null) {
    const { places, digits } = inner as { places?: unknown; digits?: unknown };
    if (typeof places === 'number' && typeof digits === 'number')
      return decimalText(digits, places);
  }
  return undefined;
}

// `fatal`: a byte sequence that is not UTF-8 throws, and then the bytes go as base64.
const DECODER = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function bytesText(bytes: Uint8Array): string {
  try {
    return DECODER.decode(bytes);
  } catch {
    return `base64:${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
  }
}

/** AMQP timestamps are whole seconds: `2024-01-01T00:00:00Z`, as Java's Instant prints them. */
export function instantText(seconds: number): string {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return String(seconds);
  return date.toISOString().replace('.000Z', 'Z');
}

/** AMQP decimal: `digits` scaled by 10^-places, as Java's BigDecimal prints it (`123.45`). */
function decimalText(digits: number, places: number): string {
  if (places <= 0) return String(digits);
  const text = String(digits).padStart(places + 1, '0');
  return `${text.slice(0, -places)}.${text.slice(-places)}`;
}
