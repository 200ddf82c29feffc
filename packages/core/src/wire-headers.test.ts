import { describe, expect, it } from 'vitest';
import type { OutboxMessage } from './model.js';
import { customHeaders, putOwnedHeaders, staticHeaderMap } from './wire-headers.js';

const message = (headers: unknown, key: string | null = null) =>
  ({
    id: 'id-1',
    topic: 'orders',
    attempt: 2,
    key,
    headers: headers as OutboxMessage['headers'],
  }) as const;

describe('wire headers', () => {
  it('merges static and row headers, drops owned copies and leaves out names the wire cannot carry', () => {
    const statics = staticHeaderMap(
      { 'X-Env': 'prod', 'X-Topic': 'static', 'bad name': 'x' },
      (n) => !n.includes(' '),
    );
    expect([...statics.keys()]).toEqual(['x-env', 'x-topic']);
    const { headers, unsent, relayed } = customHeaders(
      message({ 'X-Row': 1, 'x-message-id': 'forged', 'bad name': 'y' }),
      statics,
      (n) => !n.includes(' '),
    );
    expect([...headers.values()]).toEqual([
      ['X-Row', '1'],
      ['X-Env', 'prod'],
    ]);
    expect(unsent).toEqual(['bad name']);
    expect(relayed).toBe(false);
  });

  it('tells a relayed row by its x-inbox-id, and reads a headers column that is no object as none', () => {
    expect(customHeaders(message({ 'x-inbox-id': 'i' }), new Map()).relayed).toBe(true);
    expect(customHeaders(message(['a']), new Map()).headers.size).toBe(0);
    expect(customHeaders(message(null), new Map()).headers.size).toBe(0);
  });

  it('puts the owned headers in wire order, the key only where asked and present', () => {
    const put: string[] = [];
    putOwnedHeaders(message({}, 'k'), true, (name, value) => put.push(`${name}=${value}`));
    expect(put).toEqual(['x-message-id=id-1', 'x-topic=orders', 'x-attempt=2', 'x-message-key=k']);
    const withoutKey: string[] = [];
    putOwnedHeaders(message({}, 'k'), false, (name) => withoutKey.push(name));
    expect(withoutKey).toEqual(['x-message-id', 'x-topic', 'x-attempt']);
  });
});
