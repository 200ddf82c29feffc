import { describe, expect, it } from 'vitest';
import { checkJsonText, MAX_JSON_DEPTH, numericHolds } from './json-text-check.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('checkJsonText', () => {
  it('accepts ordinary JSON, escapes and surrogate pairs included', () => {
    for (const text of [
      '{}',
      '[]',
      '"x"',
      '12345678901234567890',
      '{"a": [1, -2.5e-3, true, null, "\\\\u0000", "\\"", "\\ud83d\\ude00", "\\u00e9"], "\\n": 1e400}',
      '{"s": "[[[[{{{{", "t": "\\\\"}',
      nested(MAX_JSON_DEPTH),
    ]) {
      expect(checkJsonText(text), text.slice(0, 60)).toBeNull();
    }
  });

  it('refuses nesting deeper than the bound, counting arrays and objects alike', () => {
    expect(checkJsonText(nested(MAX_JSON_DEPTH + 1))).toEqual({ kind: 'too-deep' });
    expect(
      checkJsonText(`${'{"a":'.repeat(MAX_JSON_DEPTH)}[]${'}'.repeat(MAX_JSON_DEPTH)}`),
    ).toEqual({
      kind: 'too-deep',
    });
    expect(checkJsonText('[1]', 1)).toBeNull();
    expect(checkJsonText('[[1]]', 1)).toEqual({ kind: 'too-deep' });
    // Brackets inside strings are text.
    expect(checkJsonText(`["${'['.repeat(5000)}"]`)).toBeNull();
  });

  it('refuses the escape \\u0000 in a value or a name, but not an escaped backslash before u0000', () => {
    expect(checkJsonText('{"a": "x\\u0000y"}')).toEqual({ kind: 'nul' });
    expect(checkJsonText('{"a\\u0000": 1}')).toEqual({ kind: 'nul' });
    expect(checkJsonText('["\\\\\\u0000"]')).toEqual({ kind: 'nul' });
    expect(checkJsonText('["\\\\u0000"]')).toBeNull();
  });

  it('refuses an escaped half of a surrogate pair without the other half', () => {
    expect(checkJsonText('["\\ud800"]')).toEqual({ kind: 'lone-surrogate', escape: '\\ud800' });
    expect(checkJsonText('["\\uDBFFx"]')).toEqual({ kind: 'lone-surrogate', escape: '\\uDBFF' });
    expect(checkJsonText('["\\udc00"]')).toEqual({ kind: 'lone-surrogate', escape: '\\udc00' });
    expect(checkJsonText('["\\ud800\\ud800"]')).toEqual({
      kind: 'lone-surrogate',
      escape: '\\ud800',
    });
    expect(checkJsonText('["\\ud800\\n"]')).toEqual({ kind: 'lone-surrogate', escape: '\\ud800' });
    expect(checkJsonText('{"\\udfff": 1}')).toEqual({ kind: 'lone-surrogate', escape: '\\udfff' });
  });

  it('refuses a number that PostgreSQL numeric cannot hold and cuts long ones in the report', () => {
    expect(checkJsonText('{"n": 1e131072}')).toEqual({
      kind: 'number-out-of-range',
      number: '1e131072',
    });
    const long = `0.${'0'.repeat(16_383)}1`;
    expect(checkJsonText(`[${long}]`)).toEqual({
      kind: 'number-out-of-range',
      number: `${long.slice(0, 37)}...`,
    });
  });

  it('finds an out-of-range number wherever a number can stand, also in a short body', () => {
    for (const text of [
      '1e131072',
      ' -1e131072',
      '[1e131072]',
      '{"a":1,"n":-1e131072}',
      '{"n":\n\t1E+131072}',
      '{"n": 0.5e-16384}',
      '[1, 2,1e131072]',
    ]) {
      expect(checkJsonText(text), text).toMatchObject({ kind: 'number-out-of-range' });
    }
    // Text that looks like such a number inside a string is no number.
    expect(checkJsonText('{"s": ":1e131072", "t": "[1e131072]"}')).toBeNull();
  });

  it('stays linear on hostile input', () => {
    const started = performance.now();
    checkJsonText(`[${'"\\\\\\"",'.repeat(100_000)}1]`);
    checkJsonText(`[${'"\\u00e9",'.repeat(100_000)}1]`);
    checkJsonText(`[${'1,'.repeat(300_000)}1]`);
    checkJsonText(nested(400_000));
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('numericHolds (the bounds of PostgreSQL 15 numeric_in)', () => {
  it.each([
    ['1e400', true],
    ['-1.50', true],
    ['1e131071', true],
    ['1e131072', false],
    ['10e131071', false],
    ['0.1e131072', true],
    ['0.1e131073', false],
    ['1e-16383', true],
    ['1e-16384', false],
    ['1.5e-16382', true],
    ['1.5e-16383', false],
    ['100e-16385', false],
    ['123456789e-16375', true],
    ['0e99999999', true],
    ['0e-99999999', false],
    ['0.0000e-20000', false],
    ['1e2147483647', false],
    ['1E+5', true],
    [`1${'0'.repeat(131_071)}`, true],
    [`1${'0'.repeat(131_072)}`, false],
    [`0.${'0'.repeat(16_382)}1`, true],
    [`0.${'0'.repeat(16_383)}1`, false],
  ])('%s → %s', (token, holds) => {
    expect(numericHolds(token)).toBe(holds);
  });
});
