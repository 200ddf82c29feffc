import { describe, expect, it } from 'vitest';
import { JsonPathError, parseJsonPath, readJsonPath } from './json-path.js';
import type { Json } from './model.js';

function problemOf(path: string): { problem: string; message: string } {
  try {
    parseJsonPath(path);
  } catch (error: unknown) {
    if (error instanceof JsonPathError) return { problem: error.problem, message: error.message };
    throw error;
  }
  throw new Error(`${path} parsed`);
}

describe('parseJsonPath', () => {
  it.each([
    ['$', []],
    ['$.id', [{ kind: 'property', name: 'id' }]],
    [
      '$.data.order_id',
      [
        { kind: 'property', name: 'data' },
        { kind: 'property', name: 'order_id' },
      ],
    ],
    ["$['a']", [{ kind: 'property', name: 'a' }]],
    ['$["x-y"]', [{ kind: 'property', name: 'x-y' }]],
    ["$['it\\'s']", [{ kind: 'property', name: "it's" }]],
    ["$[ 'a b' ]", [{ kind: 'property', name: 'a b' }]],
    ['$.x-y', [{ kind: 'property', name: 'x-y' }]],
    [
      '$.a[0]',
      [
        { kind: 'property', name: 'a' },
        { kind: 'index', index: 0 },
      ],
    ],
    [
      '$.a[-1].b',
      [
        { kind: 'property', name: 'a' },
        { kind: 'index', index: -1 },
        { kind: 'property', name: 'b' },
      ],
    ],
    ['  $.id  ', [{ kind: 'property', name: 'id' }]],
  ])('parses %s', (path, segments) => {
    expect(parseJsonPath(path)).toEqual(segments);
  });

  it('reads a path without $ as Jayway does ($. is added)', () => {
    expect(parseJsonPath('data.id')).toEqual([
      { kind: 'property', name: 'data' },
      { kind: 'property', name: 'id' },
    ]);
  });

  it.each([
    ['$..id', 'deep scan'],
    ['$.a..b', 'deep scan'],
    ['$.*', 'wildcard'],
    ['$.a[*]', 'wildcard'],
    ['$.a[?(@.x == 1)]', 'filter'],
    ['$.a[0,1]', 'union'],
    ["$['a','b']", 'union'],
    ['$.a[0:2]', 'slice'],
    ['$.a[:2]', 'slice'],
    ['$.a[-1:]', 'slice'],
  ])('refuses %s as indefinite (%s)', (path, word) => {
    const { problem, message } = problemOf(path);
    expect(problem).toBe('indefinite');
    expect(message).toContain(word);
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['$.', 'not followed by a name'],
    ['$.a.', 'not followed by a name'],
    ['$a', "unexpected 'a'"],
    ['$.a[', 'not closed'],
    ['$.a[0', 'not closed'],
    ["$['a", 'not closed'],
    ['$.a[x]', 'expected a quoted name or an index'],
    ['$.length()', 'function'],
    ['@.a', "must start with '$'"],
    ["$.a'b", 'not a valid name'],
  ])('refuses %j as invalid (%s)', (path, word) => {
    const { problem, message } = problemOf(path);
    expect(problem).toBe('invalid');
    expect(message).toContain(word);
  });
});

describe('readJsonPath', () => {
  const doc: Json = {
    id: 'e-1',
    n: 42,
    data: { 'x-y': [1, { deep: true }], nil: null },
    list: ['a', 'b', 'c'],
  };
  const read = (path: string): Json | undefined => readJsonPath(parseJsonPath(path), doc);

  it('reads nested properties and indexes', () => {
    expect(read('$.id')).toBe('e-1');
    expect(read('$.n')).toBe(42);
    expect(read("$.data['x-y'][1].deep")).toBe(true);
    expect(read('$.list[0]')).toBe('a');
    expect(read('$.list[-1]')).toBe('c');
    expect(read('$')).toEqual(doc);
  });

  it('gives null for a JSON null and undefined for a missing node', () => {
    expect(read('$.data.nil')).toBeNull();
    expect(read('$.missing')).toBeUndefined();
    expect(read('$.id.more')).toBeUndefined();
    expect(read('$.list[3]')).toBeUndefined();
    expect(read('$.list[-4]')).toBeUndefined();
    expect(read('$.data[0]')).toBeUndefined();
    expect(read('$.list.length')).toBeUndefined();
  });

  it('never reads inherited properties', () => {
    expect(read('$.toString')).toBeUndefined();
    expect(read('$.__proto__')).toBeUndefined();
  });
});
