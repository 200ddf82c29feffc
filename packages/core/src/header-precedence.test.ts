import { describe, expect, it } from 'vitest';
import { mergeCustomHeaders, type HeaderMap } from './header-precedence.js';

const map = (entries: Record<string, string>): HeaderMap =>
  new Map(Object.entries(entries).map(([name, value]) => [name.toLowerCase(), [name, value]]));

const values = (merged: HeaderMap) => Object.fromEntries([...merged.values()]);

describe('header precedence', () => {
  const statics = map({ 'X-Static': 'static', 'X-Api-Key': 'static-key' });
  const auth = ['X-API-KEY', 'auth-key'] as const;
  const row = map({ 'x-api-key': 'row-key', 'x-static': 'row', 'X-Row': 'row' });
  const relayed = map({
    'x-api-key': 'row-key',
    'x-static': 'row',
    'X-Row': 'row',
    'X-Inbox-Id': 'i',
  });

  it('lets an application row win over auth and static headers (spec §6)', () => {
    expect(values(mergeCustomHeaders(statics, auth, row))).toEqual({
      'x-static': 'row',
      'x-api-key': 'row-key',
      'X-Row': 'row',
    });
  });

  it('lets the destination win over a relayed row (it holds x-inbox-id): row < static < auth', () => {
    expect(values(mergeCustomHeaders(statics, auth, relayed))).toEqual({
      'X-Static': 'static',
      'X-API-KEY': 'auth-key',
      'X-Row': 'row',
      'X-Inbox-Id': 'i',
    });
  });

  it('lets the auth header win over a static header of the same name either way', () => {
    for (const rowHeaders of [new Map(), map({ 'x-inbox-id': 'i' })]) {
      const merged = mergeCustomHeaders(statics, auth, rowHeaders);
      expect(merged.get('x-api-key')).toEqual(auth);
    }
  });

  it('leaves its inputs alone', () => {
    mergeCustomHeaders(statics, auth, relayed);
    expect(relayed.get('x-api-key')).toEqual(['x-api-key', 'row-key']);
    expect(statics.size).toBe(2);
  });
});
