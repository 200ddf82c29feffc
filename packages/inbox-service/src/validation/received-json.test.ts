import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from './json-text-check.js';
import { readReceivedJson } from './received-json.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('readReceivedJson', () => {
  it('keeps the text as received (numbers as written) beside the parsed value', () => {
    const text = '{"id": 12345678901234567890, "amount": 1.50, "big": 1e30, "huge": 1e400}';
    const read = readReceivedJson(bytes(text));
    expect(read).toEqual({
      ok: true,
      text,
      value: { id: 12345678901234567000, amount: 1.5, big: 1e30, huge: Infinity },
    });
  });

  it('drops a leading byte order mark', () => {
    expect(readReceivedJson(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{"a":1}')]))).toMatchObject(
      { ok: true, text: '{"a":1}' },
    );
  });

  it('refuses bytes that are not UTF-8 instead of replacing them', () => {
    for (const body of [
      [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d], // {"a":"\xff"}
      [0x22, 0xc3, 0x22], // a truncated sequence
      [0x22, 0xed, 0xa0, 0x80, 0x22], // an encoded surrogate (CESU-8)
      [0x22, 0xc0, 0xaf, 0x22], // an overlong '/'
    ]) {
      expect(readReceivedJson(new Uint8Array(body))).toEqual({
        ok: false,
        problem: { kind: 'invalid-json', why: 'utf-8' },
      });
    }
  });

  it('refuses text that is not JSON, an empty body and JSON nested too deep, each with its reason', () => {
    expect(readReceivedJson(bytes('{"a":'))).toMatchObject({ problem: { why: 'syntax' } });
    expect(readReceivedJson(bytes(''))).toMatchObject({ problem: { why: 'empty' } });
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(readReceivedJson(bytes(deep))).toEqual({
      ok: false,
      problem: { kind: 'invalid-json', why: 'too-deep' },
    });
    const huge = `${'['.repeat(500_000)}${']'.repeat(500_000)}`;
    expect(readReceivedJson(bytes(huge))).toMatchObject({ problem: { why: 'too-deep' } });
  });

  it('refuses storable-looking JSON that PostgreSQL would not store', () => {
    expect(readReceivedJson(bytes('{"a":"\\u0000"}'))).toEqual({
      ok: false,
      problem: { kind: 'unstorable-body', problem: { kind: 'nul' } },
    });
    expect(readReceivedJson(bytes('["\\ud800"]'))).toMatchObject({
      problem: { kind: 'unstorable-body', problem: { kind: 'lone-surrogate' } },
    });
    expect(readReceivedJson(bytes('[1e-20000]'))).toMatchObject({
      problem: { kind: 'unstorable-body', problem: { kind: 'number-out-of-range' } },
    });
  });
});
