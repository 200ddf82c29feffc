import { describe, expect, it } from 'vitest';
import { QueueBoxError } from './errors.js';
import { compileTopicPattern } from './topic-glob.js';

describe('compileTopicPattern', () => {
  it.each([
    ['order.*', ['order.created', 'order.paid'], ['order', 'order.item.added']],
    ['order.**', ['order.created', 'order.item.added'], ['order']],
    ['**', ['order', 'order.created', 'a.b.c.d', '', 'line\nbreak'], []],
    ['order.created', ['order.created'], ['order.updated', 'xorder.created', 'order.createdx']],
  ] as const)('%s matches the rows of the spec table', (pattern, matches, misses) => {
    const regex = compileTopicPattern(pattern);
    for (const topic of matches) expect(regex.test(topic), topic).toBe(true);
    for (const topic of misses) expect(regex.test(topic), topic).toBe(false);
  });

  it('treats a dot as a literal dot', () => {
    expect(compileTopicPattern('order.created').test('orderXcreated')).toBe(false);
  });

  it('needs at least one character for a single star', () => {
    const regex = compileTopicPattern('*.created');
    expect(regex.test('order.created')).toBe(true);
    expect(regex.test('.created')).toBe(false);
    expect(regex.test('a.b.created')).toBe(false);
  });

  it('combines stars inside a segment and across segments', () => {
    expect(compileTopicPattern('order-*.v1').test('order-paid.v1')).toBe(true);
    expect(compileTopicPattern('**.dead').test('a.b.dead')).toBe(true);
    expect(compileTopicPattern('**.dead').test('dead')).toBe(false);
    expect(compileTopicPattern('a.**.z').test('a.b.c.z')).toBe(true);
  });

  it('escapes regex metacharacters', () => {
    const regex = compileTopicPattern('order+x.(a)');
    expect(regex.test('order+x.(a)')).toBe(true);
    expect(regex.test('orderrx.a')).toBe(false);
    expect(regex.test('orderx.(a)')).toBe(false);
    for (const literal of ['a|b', '[ab]', 'a{2}', 'a?', '^a$', 'a\\b', 'x/y', 'a-b']) {
      const pattern = compileTopicPattern(literal);
      expect(pattern.test(literal), literal).toBe(true);
    }
    expect(compileTopicPattern('a|b').test('a')).toBe(false);
    expect(compileTopicPattern('[ab]').test('a')).toBe(false);
  });

  it.each(['', '   ', '\t'])('rejects the blank pattern %j', (pattern) => {
    expect(() => compileTopicPattern(pattern)).toThrow(QueueBoxError);
    expect(() => compileTopicPattern(pattern)).toThrow(/must not be blank/);
  });

  it.each(['***', 'order.***', 'a.****'])('rejects %s', (pattern) => {
    try {
      compileTopicPattern(pattern);
      expect.fail('no error');
    } catch (error: unknown) {
      expect(error).toBeInstanceOf(QueueBoxError);
      expect((error as QueueBoxError).code).toBe('config_invalid');
      expect((error as QueueBoxError).message).toContain(`'${pattern}' contains '***'`);
    }
  });
});
