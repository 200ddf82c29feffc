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
