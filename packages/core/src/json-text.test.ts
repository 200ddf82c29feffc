import { describe, expect, it } from 'vitest';
import { parseJsonPath } from './json-path.js';
import {
  compactJson,
  findJsonPath,
  jsonNumberText,
  jsonSourceText,
  jsonValueEnd,
} from './json-text.js';

/** The source text of the value a path names, or undefined. */
function at(text: string, path: string): string | undefined {
  const span = findJsonPath(text, parseJsonPath(path));
  return span === undefined ? undefined : text.slice(span.start, span.end);
}

describe('findJsonPath', () => {
  const doc =
    ' { "id" : 12345678901234567890 , "data": {"list": [1, {"x": -1.50e+3}, "s\\"]", [true]] , "n": null}, "e": {}, "a": [] } ';

  it('finds a value by name and index and returns its text as written', () => {
    expect(at(doc, '$.id')).toBe('12345678901234567890');
    expect(at(doc, '$.data.list[1].x')).toBe('-1.50e+3');
    expect(at(doc, '$.data.list[2]')).toBe('"s\\"]"');
    expect(at(doc, '$.data.list[-1]')).toBe('[true]');
    expect(at(doc, '$.data.list[-1][0]')).toBe('true');
    expect(at(doc, '$.data.list[-4]')).toBe('1');
    expect(at(doc, '$.data.n')).toBe('null');
    expect(at(doc, '$.e')).toBe('{}');
    expect(at(doc, '$')).toBe(doc.trim());
  });

  it('finds nothing past the end, in the wrong kind, or under a scalar', () => {
    expect(at(doc, '$.missing')).toBeUndefined();
    expect(at(doc, '$.data.list[4]')).toBeUndefined();
    expect(at(doc, '$.data.list[-5]')).toBeUndefined();
    expect(at(doc, '$.data[0]')).toBeUndefined();
    expect(at(doc, '$.data.list.x')).toBeUndefined();
    expect(at(doc, '$.id.x')).toBeUndefined();
    expect(at(doc, '$.e.x')).toBeUndefined();
    expect(at(doc, '$.a[0]')).toBeUndefined();
    expect(at(doc, '$.a[-1]')).toBeUndefined();
    expect(at('', '$.x')).toBeUndefined();
  });

  it('reads names as JSON.parse does: escapes decoded, the last of two equal names', () => {
    const text = '{"\\u0069d": 1, "id": 2, "i\\\\d": 3, "k": {"id": 9}, "id": 4}';
    expect(at(text, '$.id')).toBe('4');
    expect(at(text, "$['i\\\\d']")).toBe('3');
    expect(at('{"\\u0069d": 7}', '$.id')).toBe('7');
    expect(JSON.parse(text)).toMatchObject({ id: 4, 'i\\d': 3 });
  });

  it('walks any depth without recursion and never throws on text that is not JSON', () => {
    const deep = `${'['.repeat(200_000)}7${']'.repeat(200_000)}`;
    expect(jsonValueEnd(deep, 0)).toBe(deep.length);
    expect(at(`{"a": ${deep}, "b": 2}`, '$.b')).toBe('2');
    for (const broken of [
      '{"a": ',
      '{"a" 1}',
      '[1,',
      '{"a": "x',
      '}}}',
      '{,}',
      '"',
      '{"a":1,,"b":2}',
    ]) {
      expect(() => at(broken, '$.a')).not.toThrow();
      expect(() => at(broken, '$[0]')).not.toThrow();
    }
  });

  it('takes linear time on many escaped names and many backslashes', () => {
    const members = Array.from({ length: 20_000 }, (_, i) => `"k\\u00${(i % 90) + 10}${i}": 1`);
    const text = `{${members.join(',')}, "s": "${'\\\\'.repeat(100_000)}", "id": 5}`;
    const started = performance.now();
    expect(at(text, '$.id')).toBe('5');
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('jsonNumberText', () => {
  /** Each number token is written as the text given with it (null: none). */
  const expectWritten = (texts: Readonly<Record<string, string | null>>) => {
    for (const [token, text] of Object.entries(texts))
      expect(jsonNumberText(token), token).toBe(text);
  };

  it('keeps every digit of an integer token', () => {
    const longInteger = `1${'0'.repeat(400)}`;
    expectWritten({
      '12345678901234567890': '12345678901234567890',
      '9007199254740993': '9007199254740993',
      '-9007199254740993': '-9007199254740993',
      [longInteger]: longInteger,
      '0': '0',
      '-0': '0',
    });
  });

  it('writes any other number in its JavaScript JSON form (spec §7.2)', () => {
    expectWritten({
      '1.50': '1.5',
      '515725.0': '515725',
      '1e30': '1e+30',
      '1E2': '100',
      '-0.0': '0',
      '12345678901234567890.5': '12345678901234567000',
      '1e400': null,
    });
  });
});

describe('jsonSourceText and compactJson', () => {
  const text =
    '{"s": "a\\nb", "e": "", "t": true, "f": false, "z": null, "n": 1.50, "o": { "a" : [ 1 , "x y" ] , "b":{} }}';
  const of = (path: string) => jsonSourceText(text, findJsonPath(text, parseJsonPath(path))!);

  it('turns a scalar into its text and a structure into compact JSON', () => {
    expect(of('$.s')).toBe('a\nb');
    expect(of('$.e')).toBe('');
    expect(of('$.t')).toBe('true');
    expect(of('$.f')).toBe('false');
    expect(of('$.z')).toBeNull();
    expect(of('$.n')).toBe('1.5');
    expect(of('$.o')).toBe('{"a":[1,"x y"],"b":{}}');
  });

  it('keeps whitespace inside strings, escaped quotes included', () => {
    const value = '[ "a \\" b" , { "k" : "\\\\" } ]';
    expect(compactJson(value, { start: 0, end: value.length })).toBe('["a \\" b",{"k":"\\\\"}]');
  });
});
