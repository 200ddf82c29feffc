import { describe, expect, it } from 'vitest';
import { outboxMessage } from '@queuebox/testing';
import { staticHeaderMap, wireHeaders } from './wire-message.js';

const OURS = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('wireHeaders and the trace context', () => {
  it('sends the span context in place of the row and static copies while tracing', () => {
    const { headers } = wireHeaders(
      outboxMessage({ headers: { TraceParent: 'row', tracestate: 'row=1', 'x-row': 'kept' } }),
      staticHeaderMap({ traceparent: 'static' }),
      [
        ['traceparent', OURS],
        ['tracestate', 'ours=1'],
      ],
    );
    expect(
      headers.filter(([name]) => ['traceparent', 'tracestate'].includes(name.toLowerCase())),
    ).toEqual([
      ['traceparent', OURS],
      ['tracestate', 'ours=1'],
    ]);
    expect(headers).toContainEqual(['x-row', 'kept']);
  });

  it('sends a row traceparent as it is while tracing is off', () => {
    const { headers } = wireHeaders(outboxMessage({ headers: { traceparent: 'row' } }), new Map());
    expect(headers).toContainEqual(['traceparent', 'row']);
  });
});

describe('wireHeaders of a row that names no header', () => {
  it('sends what the merge makes of the static headers, then the owned ones, with a key', () => {
    const statics = staticHeaderMap({
      'X-Static': 'a',
      'x-topic': 'forged',
      'X-Line': 'a\r\nb',
      'Nats-Msg-Id': 'chosen',
    });
    const bare = wireHeaders(outboxMessage({ key: 'k-1' }), statics);
    const merged = wireHeaders(outboxMessage({ key: 'k-1', headers: { 'x-other': 'o' } }), statics);
    expect(bare.headers).toEqual(merged.headers.filter(([name]) => name !== 'x-other'));
    expect(bare.headers).toEqual([
      ['X-Static', 'a'],
      ['X-Line', 'a%0D%0Ab'],
      ['x-message-id', '0198c2f4-5d6e-7a8b-9c0d-1e2f3a4b5c6d'],
      ['x-topic', 'orders.created'],
      ['x-attempt', '0'],
      ['x-message-key', 'k-1'],
    ]);
    expect(bare.unsent).toBeNull();
    // Built once per destination: a second row gets the same entries, not a shared list.
    const again = wireHeaders(outboxMessage({ id: 'other', attempt: 2 }), statics);
    expect(again.headers).toContainEqual(['x-message-id', 'other']);
    expect(bare.headers).toContainEqual(['x-message-id', '0198c2f4-5d6e-7a8b-9c0d-1e2f3a4b5c6d']);
  });
});
