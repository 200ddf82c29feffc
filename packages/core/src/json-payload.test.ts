import { describe, expect, it } from 'vitest';
import { JsonPayload } from './json-payload.js';

describe('JsonPayload read as bytes', () => {
  const text = '{"n": 12345678901234567890, "s": "caf\u00e9 \u2603 \ud83d\ude00", "d": [[[1.50]]]}';
  const bytes = new TextEncoder().encode(text);

  it('hands a client the very bytes it was given', () => {
    expect(JsonPayload.fromBytes(bytes).body).toBe(bytes);
  });

  it('decodes the text once, exactly, non-ASCII and big numbers included', () => {
    const payload = JsonPayload.fromBytes(bytes);
    expect(payload.text).toBe(text);
    expect(payload.text).toBe(payload.text);
    expect(payload.value).toEqual({
      n: 12345678901234567000,
      s: 'caf\u00e9 \u2603 \ud83d\ude00',
      d: [[[1.5]]],
    });
  });

  it('keeps a leading byte order mark in the text, as it was in the bytes', () => {
    const marked = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{}')]);
    expect(JsonPayload.fromBytes(marked).text).toBe('\ufeff{}');
  });

  it('is equal to another by its bytes, and unequal when they differ', () => {
    expect(JsonPayload.fromBytes(bytes)).toEqual(JsonPayload.fromBytes(Uint8Array.from(bytes)));
    expect(JsonPayload.fromBytes(bytes)).not.toEqual(
      JsonPayload.fromBytes(new TextEncoder().encode('{"n": 1}')),
    );
  });
});

describe('JsonPayload as text', () => {
  it('sends its text, and is equal to another by its text', () => {
    const payload = JsonPayload.fromText('{"a": 1.50}');
    expect(payload.body).toBe('{"a": 1.50}');
    expect(payload).toEqual(JsonPayload.fromText('{"a": 1.50}'));
    expect(payload).not.toEqual(JsonPayload.fromText('{"a": 1.5}'));
    expect(JsonPayload.fromValue({ a: 1.5 }).text).toBe('{"a":1.5}');
  });
});
