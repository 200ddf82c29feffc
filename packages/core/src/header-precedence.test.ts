import { describe, expect, it } from 'vitest';
import { mergeCustomHeaders, type HeaderMap } from './header-precedence.js';
import { OWNED_HEADERS, SIGNING_HEADERS, isOwnedHeader, isSigningHeader } from './owned-headers.js';

const map = (entries: Record<string, string>): HeaderMap =>
  new Map(Object.entries(entries).map(([name, value]) => [name.toLowerCase(), [name, value]]));

const values = (merged: HeaderMap) => Object.fromEntries([...merged.values()]);

describe('header precedence', () => {
  const statics = () => map({ 'X-Static': 'static', 'X-Api-Key': 'static-key' });
  const auth = ['X-API-KEY', 'auth-key'] as const;
  const row = (extra: Record<string, string> = {}) =>
    map({ 'x-api-key': 'row-key', 'x-static': 'row', 'X-Row': 'row', ...extra });

  it('lets an application row win over auth and static headers (spec §6)', () => {
    expect(values(mergeCustomHeaders(statics(), auth, row()))).toEqual({
      'x-static': 'row',
      'x-api-key': 'row-key',
      'X-Row': 'row',
    });
  });

  it('lets the destination win over a relayed row (it holds x-inbox-id): row < static < auth', () => {
    expect(values(mergeCustomHeaders(statics(), auth, row({ 'x-inbox-id': 'i' })))).toEqual({
      'X-Static': 'static',
      'X-API-KEY': 'auth-key',
      'X-Row': 'row',
      'x-inbox-id': 'i',
    });
  });

  it('lets the auth header win over a static header of the same name either way', () => {
    for (const rowHeaders of [new Map(), map({ 'x-inbox-id': 'i' })] as HeaderMap[]) {
      expect(mergeCustomHeaders(statics(), auth, rowHeaders).get('x-api-key')).toEqual(auth);
    }
  });

  it('adds static headers the row does not name, and no auth when there is none', () => {
    expect(values(mergeCustomHeaders(statics(), null, map({ 'X-Row': 'row' })))).toEqual({
      'X-Row': 'row',
      'X-Static': 'static',
      'X-Api-Key': 'static-key',
    });
  });

  it('builds the merge in the row map and leaves the static headers alone', () => {
    const fixed = statics();
    const rowHeaders = map({ 'X-Row': 'row' });
    expect(mergeCustomHeaders(fixed, auth, rowHeaders)).toBe(rowHeaders);
    expect(fixed).toEqual(statics());
  });

  it('never lets a row, a static or an auth header supply an owned header, in any letter case', () => {
    const owned = {
      'X-MESSAGE-ID': 'forged',
      'x-topic': 'forged',
      'X-Attempt': '99',
      'x-message-KEY': 'k',
    };
    for (const extra of [{}, { 'x-inbox-id': 'i' }] as Record<string, string>[]) {
      const merged = mergeCustomHeaders(
        map({ ...owned, 'X-Static': 'static' }),
        ['x-attempt', 'auth'],
        map({ ...owned, ...extra, 'X-Row': 'row' }),
      );
      expect([...merged.keys()].filter((name) => isOwnedHeader(name))).toEqual([]);
      expect(values(merged)).toMatchObject({ 'X-Static': 'static', 'X-Row': 'row' });
    }
  });
});

describe('signing headers', () => {
  it('are owned only where the destination says so: no row, static or auth copy then', () => {
    const statics = map({ 'Webhook-Signature': 'v1,static', 'X-Static': 's' });
    const auth = ['webhook-timestamp', '1'] as const;
    const row = () => map({ 'WEBHOOK-ID': 'msg_row', 'X-Row': 'r' });
    expect(values(mergeCustomHeaders(statics, auth, row(), SIGNING_HEADERS))).toEqual({
      'X-Row': 'r',
      'X-Static': 's',
    });
    // Without the extra list the merge is what it always was.
    expect(values(mergeCustomHeaders(statics, auth, row()))).toEqual({
      'WEBHOOK-ID': 'msg_row',
      'X-Row': 'r',
      'Webhook-Signature': 'v1,static',
      'X-Static': 's',
      'webhook-timestamp': '1',
    });
    expect(SIGNING_HEADERS).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    expect(isSigningHeader('Webhook-Signature')).toBe(true);
    expect(isOwnedHeader('webhook-id')).toBe(false);
  });
});

describe('owned headers', () => {
  it('lists the four headers QueueBox sets on every publish, matched in any letter case', () => {
    expect(OWNED_HEADERS).toEqual(['X-Message-Id', 'X-Topic', 'X-Attempt', 'X-Message-Key']);
    expect(isOwnedHeader('x-message-id')).toBe(true);
    expect(isOwnedHeader('X-ATTEMPT')).toBe(true);
    expect(isOwnedHeader('X-Message-Ids')).toBe(false);
    expect(isOwnedHeader('x-inbox-id')).toBe(false);
  });
});
