import { describe, expect, it } from 'vitest';
import { JsonPayload, isOwnedHeader, type OutboxMessage } from '@queuebox/core';
import {
  MAX_HEADER_TABLE_BYTES,
  fitsShortString,
  staticHeaderMap,
  wireProperties,
} from './wire-message.js';

const message = (overrides: Partial<OutboxMessage> = {}): OutboxMessage => ({
  id: '0b7e6c1e-8a39-4a4e-9a55-0d5c2a1f3e10',
  topic: 'order.created',
  key: null,
  aggregateType: null,
  payload: JsonPayload.fromText('{}'),
  headers: {},
  state: 'processing',
  attempt: 2,
  maxAttempts: 5,
  scheduledAt: new Date(0),
  createdAt: new Date(0),
  sequence: null,
  lastError: null,
  ...overrides,
});

const headersOf = (result: ReturnType<typeof wireProperties>) => {
  if (!result.ok) throw new Error(result.error);
  return result.options.headers as Record<string, unknown>;
};

describe('wireProperties', () => {
  it('sets the reference properties and x-attempt as a 32-bit integer', () => {
    const result = wireProperties(message(), new Map(), 2);
    expect(result).toMatchObject({
      ok: true,
      unsent: null,
      options: {
        mandatory: true,
        messageId: '0b7e6c1e-8a39-4a4e-9a55-0d5c2a1f3e10',
        contentType: 'application/json',
        deliveryMode: 2,
      },
    });
    expect(headersOf(result)).toEqual({
      'x-topic': 'order.created',
      // amqplib's typed value: the `I` field type, as the reference's Java Integer.
      'x-attempt': { '!': 'int', value: 2 },
    });
  });

  it('merges static headers under row headers by lower-case name on an application row', () => {
    const statics = staticHeaderMap({ 'X-Env': 'prod', 'X-Static': 's' });
    const headers = headersOf(wireProperties(message({ headers: { 'x-env': 'row' } }), statics, 1));
    expect(headers).toEqual({
      'x-topic': 'order.created',
      'x-attempt': { '!': 'int', value: 2 },
      'X-Static': 's',
      'x-env': 'row',
    });
  });

  it('keeps static headers over a relayed row’s headers', () => {
    const statics = staticHeaderMap({ 'X-Api-Key': 'configured' });
    const headers = headersOf(
      wireProperties(
        message({
          headers: { 'x-inbox-id': 'inbox-1', 'x-api-key': 'forged', 'x-sender': 'kept' },
        }),
        statics,
        2,
      ),
    );
    expect(headers).toEqual({
      'x-topic': 'order.created',
      'x-attempt': { '!': 'int', value: 2 },
      'x-inbox-id': 'inbox-1',
      'x-sender': 'kept',
      'X-Api-Key': 'configured',
    });
  });

  const rows: { kind: string; extra: Record<string, string> }[] = [
    { kind: "an application's own row", extra: {} },
    { kind: 'a relayed row', extra: { 'x-inbox-id': 'inbox-1' } },
  ];

  it.each(rows)(
    'sends x-topic and x-attempt once, as QueueBox’s, and no row copy of an owned header, whatever $kind carries',
    ({ extra }) => {
      const owned = {
        'X-Topic': 'forged',
        'x-attempt': '99',
        'X-Message-Id': 'forged-id',
        'x-message-key': 'forged-key',
      };
      const result = wireProperties(
        message({ headers: { ...extra, ...owned, 'x-row': 'r' } }),
        staticHeaderMap({ 'x-topic': 'static' }),
        2,
      );
      if (!result.ok) throw new Error(result.error);
      expect(result.options.messageId).toBe('0b7e6c1e-8a39-4a4e-9a55-0d5c2a1f3e10');
      const headers = headersOf(result);
      expect(Object.keys(headers).filter((name) => isOwnedHeader(name))).toEqual([
        'x-topic',
        'x-attempt',
      ]);
      expect(headers).toMatchObject({
        'x-topic': 'order.created',
        'x-attempt': { '!': 'int', value: 2 },
        'x-row': 'r',
      });
    },
  );

  it('keeps a header named __proto__ as data', () => {
    const headers = headersOf(
      wireProperties(message({ headers: JSON.parse('{"__proto__": "x"}') as never }), new Map(), 2),
    );
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
    expect(Object.keys(headers)).toContain('__proto__');
  });

  it('leaves out names past 255 bytes and refuses a table past the bound', () => {
    const longName = 'é'.repeat(128);
    expect(fitsShortString('é'.repeat(127))).toBe(true);
    expect(fitsShortString(longName)).toBe(false);
    const result = wireProperties(message({ headers: { [longName]: 'v', ok: 'v' } }), new Map(), 2);
    expect(result).toMatchObject({ ok: true, unsent: [longName] });
    expect(Object.keys(headersOf(result))).toEqual(['x-topic', 'x-attempt', 'ok']);

    const big = wireProperties(
      message({ headers: { a: 'x'.repeat(MAX_HEADER_TABLE_BYTES) } }),
      new Map(),
      2,
    );
    expect(big).toMatchObject({ ok: false });
    expect(staticHeaderMap({ [longName]: 'v' }).size).toBe(0);
  });

  it('sends a header value that is not a JSON string as its JSON text', () => {
    const headers = headersOf(
      wireProperties(message({ headers: { n: 1, b: true, o: { a: 1 } } as never }), new Map(), 2),
    );
    expect(headers).toMatchObject({ n: '1', b: 'true', o: '{"a":1}' });
  });
});

describe('wireProperties of a row that names no header', () => {
  it('sends what the merge makes of the static headers, and bounds them as any table', () => {
    const statics = staticHeaderMap({ 'X-Static': 's', 'x-TOPIC': 'forged', 'X-Attempt': '9' });
    const bare = headersOf(wireProperties(message(), statics, 2));
    const merged = headersOf(wireProperties(message({ headers: { 'x-other': 'o' } }), statics, 2));
    delete merged['x-other'];
    expect(bare).toEqual(merged);
    expect(Object.entries(bare)).toEqual([
      ['x-topic', 'order.created'],
      ['x-attempt', { '!': 'int', value: 2 }],
      ['X-Static', 's'],
    ]);
    // Computed once per destination, the sizes still count toward the bound.
    const huge = staticHeaderMap({ a: 'x'.repeat(MAX_HEADER_TABLE_BYTES) });
    expect(wireProperties(message(), huge, 2)).toMatchObject({ ok: false });
    expect(wireProperties(message(), huge, 2)).toMatchObject({ ok: false });
  });
});

describe('wireProperties and the trace context', () => {
  const OURS = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  it('sends the span context in place of the row and static copies while tracing', () => {
    const headers = headersOf(
      wireProperties(
        message({ headers: { TraceParent: 'row', TRACESTATE: 'row=1', 'x-row': 'kept' } }),
        staticHeaderMap({ traceparent: 'static' }),
        2,
        [
          ['traceparent', OURS],
          ['tracestate', 'ours=1'],
        ],
      ),
    );
    const trace = Object.entries(headers).filter(([name]) =>
      ['traceparent', 'tracestate'].includes(name.toLowerCase()),
    );
    expect(trace).toEqual([
      ['traceparent', OURS],
      ['tracestate', 'ours=1'],
    ]);
    expect(headers['x-row']).toBe('kept');
  });

  it('sends a row traceparent as it is while tracing is off', () => {
    expect(
      headersOf(wireProperties(message({ headers: { traceparent: 'row' } }), new Map(), 2)),
    ).toMatchObject({ traceparent: 'row' });
  });
});
