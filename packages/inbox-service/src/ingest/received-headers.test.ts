import { describe, expect, it } from 'vitest';
import { ReceivedHeaders } from './received-headers.js';

describe('ReceivedHeaders', () => {
  const headers = new ReceivedHeaders([
    ['Content-Type', 'application/json'],
    ['X-Tenant', 'first'],
    ['Authorization', 'Bearer t'],
    ['x-tenant', 'last'],
    ['Cookie', 'a=b'],
    [':authority', 'example.org'],
  ]);

  it('looks names up in any letter case and keeps the last value of a repeated name', () => {
    expect(headers.get('X-TENANT')).toBe('last');
    expect(headers.lookup('content-type')).toBe('application/json');
    expect(headers.lookupLowerCase('x-tenant')).toBe('last');
    expect(headers.get('missing')).toBeUndefined();
  });

  it('stores the sender spelling of the last occurrence, without the excluded names and pseudo headers', () => {
    expect(headers.stored(new Set(['authorization', 'cookie']))).toEqual({
      'Content-Type': 'application/json',
      'x-tenant': 'last',
    });
  });

  it('keeps a header named __proto__ as data', () => {
    const stored = new ReceivedHeaders([['__proto__', 'x']]).stored(new Set());
    expect(Object.keys(stored)).toEqual(['__proto__']);
    expect(JSON.stringify(stored)).toBe('{"__proto__":"x"}');
  });
});
