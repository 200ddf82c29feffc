import { describe, expect, it } from 'vitest';
import {
  InvalidFilter,
  decodeCursor,
  describeFilter,
  encodeCursor,
  filterFromBody,
  filterFromQuery,
  limitOf,
  namesRows,
} from './console-query.js';

const query =
  (values: Record<string, string[]>) =>
  (name: string): string[] | undefined =>
    values[name];

describe('the console filters', () => {
  it('reads repeated and comma-separated states and topics from a query string', () => {
    const parsed = filterFromQuery(
      'outbox',
      query({
        state: ['dead,sent'],
        topic: ['a', 'b'],
        q: ['HTTP 5'],
        from: ['2026-01-01T00:00:00Z'],
      }),
    );
    expect(parsed.filter).toMatchObject({
      states: ['dead', 'sent'],
      groups: ['a', 'b'],
      q: 'HTTP 5',
      from: new Date('2026-01-01T00:00:00Z'),
      to: null,
      ids: null,
    });
    expect(describeFilter(parsed, 'outbox')).toBe(
      'topics=a,b from=2026-01-01T00:00:00.000Z q="HTTP 5"',
    );
  });

  it('refuses a state of the other table, a bad instant, a bad id and a destination on the inbox', () => {
    expect(() => filterFromQuery('inbox', query({ state: ['sent'] }))).toThrow(
      "'state' must be one of pending, processing, processed, dead, not 'sent'",
    );
    expect(() => filterFromQuery('outbox', query({ to: ['yesterday'] }))).toThrow(InvalidFilter);
    expect(() => filterFromBody('outbox', { ids: ['nope'] })).toThrow(
      "'nope' in 'ids' is not a UUID",
    );
    expect(() => filterFromBody('inbox', { destination: 'x' })).toThrow(/outbox only/);
  });

  it('narrows topic and topics to their intersection, and needs some filter for a write', () => {
    expect(filterFromBody('outbox', { topic: 'a', topics: ['a', 'b'] }).filter.groups).toEqual([
      'a',
    ]);
    expect(filterFromBody('outbox', { topic: 'c', topics: ['a'] }).filter.groups).toEqual([]);
    expect(namesRows(filterFromBody('inbox', {}))).toBe(false);
    expect(namesRows(filterFromBody('inbox', { q: '' }))).toBe(false);
    expect(namesRows(filterFromBody('inbox', { source: 'hooks' }))).toBe(true);
  });

  it('bounds limits', () => {
    expect(limitOf(undefined, 50, 500)).toBe(50);
    expect(limitOf('20', 50, 500)).toBe(20);
    for (const bad of ['0', '501', '1.5', 'x', -1])
      expect(() => limitOf(bad, 50, 500)).toThrow(InvalidFilter);
  });

  it('round-trips a cursor with the database time untouched, and refuses any other text', () => {
    const position = {
      createdAt: '2026-01-01 00:00:01.123456+00',
      id: '7d0c8f5e-0000-4000-8000-000000000001',
    };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    const sqlServer = { createdAt: '2026-01-01T00:00:01.1234567', id: position.id };
    expect(decodeCursor(encodeCursor(sqlServer))).toEqual(sqlServer);
    expect(decodeCursor(undefined)).toBeNull();
    for (const bad of ['nonsense', Buffer.from('["now","x"]').toString('base64url')])
      expect(() => decodeCursor(bad)).toThrow("'cursor' is not a cursor this API returned");
  });
});
