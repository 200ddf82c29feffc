import { describe, expect, it } from 'vitest';
import { checkAttributes, checkHeaders, MAX_ATTRIBUTE_LENGTH } from './attribute-check.js';
import { problemText } from './input-problem.js';

const attributes = (overrides: Partial<Parameters<typeof checkAttributes>[0]> = {}) => ({
  idempotencyKey: 'k',
  aggregateId: null,
  eventType: null,
  ...overrides,
});

describe('checkAttributes', () => {
  it('counts characters as PostgreSQL does: code points, not UTF-16 units', () => {
    const emoji = '😀'.repeat(MAX_ATTRIBUTE_LENGTH);
    expect(emoji.length).toBe(2 * MAX_ATTRIBUTE_LENGTH);
    expect(checkAttributes(attributes({ idempotencyKey: emoji }))).toBeNull();
    expect(checkAttributes(attributes({ idempotencyKey: 'x'.repeat(255) }))).toBeNull();
    expect(checkAttributes(attributes({ idempotencyKey: `${emoji}x` }))).toEqual({
      kind: 'attribute-too-long',
      field: 'idempotencyKey',
      limit: 255,
    });
  });

  it('names the field that is too long', () => {
    const long = 'x'.repeat(256);
    const text = (overrides: Parameters<typeof attributes>[0]) =>
      problemText(checkAttributes(attributes(overrides))!);
    expect(text({ idempotencyKey: long })).toBe(
      'The idempotency key is longer than 255 characters.',
    );
    expect(text({ aggregateId: long })).toBe('The aggregate id is longer than 255 characters.');
    expect(text({ eventType: long })).toBe('The event type is longer than 255 characters.');
  });

  it('refuses a NUL or a lone surrogate, naming the field', () => {
    expect(problemText(checkAttributes(attributes({ eventType: 'a\u0000b' }))!)).toBe(
      'The event type holds a NUL character (U+0000), which cannot be stored.',
    );
    expect(problemText(checkAttributes(attributes({ aggregateId: 'a\ud800' }))!)).toBe(
      'The aggregate id holds half of a UTF-16 surrogate pair without the other half, which cannot be stored.',
    );
    expect(checkAttributes(attributes({ idempotencyKey: '\udc00x' }))).toMatchObject({
      field: 'idempotencyKey',
      character: 'lone-surrogate',
    });
    expect(
      checkAttributes(attributes({ eventType: 'line\nbreak', aggregateId: '订单-1' })),
    ).toBeNull();
  });
});

describe('checkHeaders', () => {
  it('refuses a header whose name or value holds a NUL or a lone surrogate, naming it printably', () => {
    expect(checkHeaders({ 'content-type': 'application/json', 'x-ok': 'café 😀' })).toBeNull();
    expect(problemText(checkHeaders({ 'X-Trace': 'a\u0000b' })!)).toBe(
      "The header 'X-Trace' holds a NUL character (U+0000), which cannot be stored.",
    );
    expect(checkHeaders({ 'x-\u0000name': 'v' })).toEqual({
      kind: 'unstorable-header',
      name: 'x-?name',
      character: 'nul',
    });
    expect(checkHeaders({ 'x-half': '\ud83d' })).toMatchObject({ character: 'lone-surrogate' });
  });
});
