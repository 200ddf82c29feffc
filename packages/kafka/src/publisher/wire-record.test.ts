import { describe, expect, it } from 'vitest';
import { JsonPayload, isOwnedHeader, type OutboxMessage } from '@queuebox/core';
import { outboxMessage } from '@queuebox/testing';
import { recordKey, staticHeaderMap, topicProblem, wireRecord } from './wire-record.js';

const message = (overrides: Partial<OutboxMessage> = {}): OutboxMessage =>
  outboxMessage({
    id: '0b7e6c1e-8a39-4a4e-9a55-0d5c2a1f3e10',
    topic: 'order.created',
    attempt: 2,
    ...overrides,
  });

const request = (
  overrides: Partial<OutboxMessage> = {},
  routing: { address?: string | null; routingKey?: string | null } = {},
) => {
  const m = message(overrides);
  return {
    message: m,
    payload: m.payload,
    address: routing.address === undefined ? 'orders' : routing.address,
    routingKey: routing.routingKey ?? null,
  };
};

const recordOf = (result: ReturnType<typeof wireRecord>) => {
  if (!result.ok) throw new Error(result.error);
  return result.record;
};

/** The headers as kafkajs writes them: one [name, value] per entry, in order. */
const wireHeaders = (result: ReturnType<typeof wireRecord>) =>
  Object.entries(recordOf(result).message.headers ?? {}).flatMap(([name, value]) =>
    [value].flat().map((v): [string, string] => [name, String(v)]),
  );

describe('wireRecord: topic, key and value', () => {
  it('sends the payload text as UTF-8 bytes, exactly as stored', () => {
    const text = '{"id": 12345678901234567890, "amount": 1.50, "name": "café"}';
    const record = recordOf(
      wireRecord(request({ payload: JsonPayload.fromText(text) }), '{{ key }}', new Map()),
    );
    expect(record.topic).toBe('orders');
    expect(Buffer.isBuffer(record.message.value)).toBe(true);
    expect((record.message.value as Buffer).toString('utf8')).toBe(text);
    expect(record.bytes).toBeGreaterThan(Buffer.byteLength(text));
  });

  it('sends the bytes a store read as they are: a view of them, never a decoded string', () => {
    // A claim hands the payload over as the bytes the database sent (a Buffer from postgres.js).
    const stored = Buffer.from('{"n": 18446744073709551616, "s": "\u00e9\u4e2d"}', 'utf8');
    const record = recordOf(
      wireRecord(request({ payload: JsonPayload.fromBytes(stored) }), '{{ key }}', new Map()),
    );
    expect(record.message.value).toBe(stored);
    // A Uint8Array that is not a Buffer is wrapped over the same memory.
    const plain = new Uint8Array(stored.buffer, stored.byteOffset, stored.byteLength);
    const wrapped = recordOf(
      wireRecord(request({ payload: JsonPayload.fromBytes(plain) }), '{{ key }}', new Map()),
    ).message.value as Buffer;
    expect(Buffer.isBuffer(wrapped)).toBe(true);
    expect(wrapped.buffer).toBe(stored.buffer);
    expect(wrapped.equals(stored)).toBe(true);
  });

  it('keys the record by the route routing key when the route set one, else by keyTemplate', () => {
    expect(recordKey('route-key', '{{ key }}', { topic: 't', key: 'row-key' })).toBe('route-key');
    expect(recordKey(null, '{{ key }}', { topic: 't', key: 'row-key' })).toBe('row-key');
    expect(recordKey(null, '{{ topic }}/{{ key }}', { topic: 't', key: 'k' })).toBe('t/k');
    // Only the spaced forms render (spec §5.3, Kafka keyTemplate).
    expect(recordKey(null, '{{key}}', { topic: 't', key: 'k' })).toBe('{{key}}');
  });

  it('sends no key when the route key or the template renders blank', () => {
    expect(recordKey('  ', '{{ key }}', { topic: 't', key: 'k' })).toBeNull();
    expect(recordKey('', '{{ key }}', { topic: 't', key: 'k' })).toBeNull();
    expect(recordKey(null, '{{ key }}', { topic: 't', key: null })).toBeNull();
    expect(recordKey(null, ' ', { topic: 't', key: 'k' })).toBeNull();
    const record = recordOf(wireRecord(request({ key: null }), '{{ key }}', new Map()));
    expect(record.message.key).toBeNull();
    const keyed = recordOf(wireRecord(request({ key: 'o-1' }), '{{ key }}', new Map()));
    expect(keyed.message.key).toBe('o-1');
  });

  it('fails a row whose topic is blank or not a Kafka topic name, naming it', () => {
    for (const address of ['', '  ', null]) {
      expect(wireRecord(request({}, { address }), '{{ key }}', new Map())).toEqual({
        ok: false,
        error: 'Publish failed: the destination resolved no topic for this message',
      });
    }
    expect(topicProblem('orders.created_v2-eu')).toBeNull();
    expect(topicProblem('a'.repeat(249))).toBeNull();
    for (const bad of ['a'.repeat(250), 'orders/eu', 'orders created', '.', '..', 'ördérs']) {
      expect(topicProblem(bad)).toMatch(/^Publish failed: '.*' is not a Kafka topic name/);
    }
    expect(wireRecord(request({}, { address: 'a b' }), '{{ key }}', new Map())).toMatchObject({
      ok: false,
    });
  });
});

describe('wireRecord: headers', () => {
  it('sends static, then row headers, then x-message-id, x-topic and x-attempt as strings', () => {
    const statics = staticHeaderMap({ 'X-Static': 's', 'X-Env': 'prod' });
    const result = wireRecord(
      request({ headers: { 'x-env': 'row', 'x-row': 'r' } }),
      '{{ key }}',
      statics,
    );
    expect(wireHeaders(result)).toEqual([
      ['x-env', 'row'],
      ['x-row', 'r'],
      ['X-Static', 's'],
      ['x-message-id', '0b7e6c1e-8a39-4a4e-9a55-0d5c2a1f3e10'],
      ['x-topic', 'order.created'],
      ['x-attempt', '2'],
    ]);
    for (const [, value] of Object.entries(recordOf(result).message.headers ?? {})) {
      for (const v of [value].flat()) expect(typeof v).toBe('string');
    }
  });

  const rows: { kind: string; extra: Record<string, string> }[] = [
    { kind: "an application's own row", extra: {} },
    { kind: 'a relayed row', extra: { 'x-inbox-id': 'inbox-1' } },
  ];

  it.each(rows)(
    'sends each owned header once, with QueueBox’s value, whatever $kind carries',
    ({ extra }) => {
      const owned = {
        'X-Message-Id': 'forged',
        'x-topic': 'own',
        'X-ATTEMPT': '9',
        'x-message-key': 'forged-key',
      };
      const result = wireRecord(
        request({ headers: { ...extra, ...owned, 'x-row': 'r' } }),
        '{{ key }}',
        staticHeaderMap({ 'X-Topic': 'static' }),
      );
      const sent = wireHeaders(result).filter(([name]) => isOwnedHeader(name));
      expect(sent).toEqual([
        ['x-message-id', '0b7e6c1e-8a39-4a4e-9a55-0d5c2a1f3e10'],
        ['x-topic', 'order.created'],
        ['x-attempt', '2'],
      ]);
      expect(wireHeaders(result)).toContainEqual(['x-row', 'r']);
    },
  );

  it('on a relayed row keeps static headers and the standard headers over the sender’s', () => {
    const statics = staticHeaderMap({ 'X-Api-Key': 'configured' });
    const result = wireRecord(
      request({
        headers: {
          'x-inbox-id': 'inbox-1',
          'X-Topic': 'forged',
          'x-message-id': 'forged',
          'x-attempt': '99',
          'x-api-key': 'forged',
          'x-sender': 'kept',
        },
      }),
      '{{ key }}',
      statics,
    );
    expect(wireHeaders(result)).toEqual([
      ['x-inbox-id', 'inbox-1'],
      ['X-Api-Key', 'configured'],
      ['x-sender', 'kept'],
      ['x-message-id', '0b7e6c1e-8a39-4a4e-9a55-0d5c2a1f3e10'],
      ['x-topic', 'order.created'],
      ['x-attempt', '2'],
    ]);
  });

  it('sends a value that is not a JSON string as its JSON text, and a non-object column as none', () => {
    const result = wireRecord(
      request({ headers: { n: 1, b: true, o: { a: 1 }, z: null } as never }),
      '{{ key }}',
      new Map(),
    );
    expect(wireHeaders(result).slice(0, 4)).toEqual([
      ['n', '1'],
      ['b', 'true'],
      ['o', '{"a":1}'],
      ['z', 'null'],
    ]);
    for (const headers of [[1, 2], 'text', 7]) {
      const plain = wireRecord(request({ headers: headers as never }), '{{ key }}', new Map());
      expect(wireHeaders(plain).map(([name]) => name)).toEqual([
        'x-message-id',
        'x-topic',
        'x-attempt',
      ]);
    }
  });

  it('keeps a header named __proto__ as data', () => {
    const result = wireRecord(
      request({ headers: JSON.parse('{"__proto__": "x"}') as never }),
      '{{ key }}',
      new Map(),
    );
    const headers = recordOf(result).message.headers!;
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
    expect(Object.keys(headers)).toContain('__proto__');
  });

  it('counts header and key bytes in UTF-8 into the record size', () => {
    const small = recordOf(wireRecord(request({ key: 'k' }), '{{ key }}', new Map()));
    const large = recordOf(
      wireRecord(request({ key: 'k', headers: { h: 'é'.repeat(1000) } }), '{{ key }}', new Map()),
    );
    expect(large.bytes - small.bytes).toBeGreaterThanOrEqual(2001);
  });

  it('sizes a row without headers as the merge does: one header of a row adds exactly its own bytes', () => {
    const topic = 'zamówienia';
    const bare = recordOf(wireRecord(request({ topic }), '{{ key }}', new Map()));
    expect(wireHeaders(wireRecord(request({ topic }), '{{ key }}', new Map()))).toEqual([
      ['x-message-id', '0b7e6c1e-8a39-4a4e-9a55-0d5c2a1f3e10'],
      ['x-topic', topic],
      ['x-attempt', '2'],
    ]);
    const withOne = recordOf(
      wireRecord(request({ topic, headers: { ab: 'cd' } }), '{{ key }}', new Map()),
    );
    const withStatic = recordOf(
      wireRecord(request({ topic }), '{{ key }}', staticHeaderMap({ ab: 'cd' })),
    );
    // 4 bytes of framing, 'ab', 'cd'.
    expect(withOne.bytes - bare.bytes).toBe(8);
    expect(withStatic.bytes - bare.bytes).toBe(8);
    // 'x-message-id' + 36, 'x-topic' + 11 UTF-8 bytes, 'x-attempt' + 1, 4 each.
    expect(bare.bytes - bare.message.value!.length).toBe(24 + 12 + 36 + 7 + 11 + 9 + 1 + 12);
  });
});

describe('wireRecord and the trace context', () => {
  const OURS = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  it('sends the span context in place of the row and static copies while tracing', () => {
    const record = recordOf(
      wireRecord(
        {
          ...request({ headers: { TraceParent: 'row', 'x-row': 'kept' } }),
          traceHeaders: [['traceparent', OURS]],
        },
        '{{ key }}',
        staticHeaderMap({ traceparent: 'static' }),
      ),
    );
    const headers = record.message.headers as Record<string, unknown>;
    const trace = Object.entries(headers).filter(([name]) => name.toLowerCase() === 'traceparent');
    expect(trace).toEqual([['traceparent', OURS]]);
    expect(headers['x-row']).toBe('kept');
  });

  it('sends a row traceparent as it is while tracing is off', () => {
    const record = recordOf(
      wireRecord(request({ headers: { traceparent: 'row' } }), '{{ key }}', new Map()),
    );
    expect(record.message.headers).toMatchObject({ traceparent: 'row' });
  });
});
