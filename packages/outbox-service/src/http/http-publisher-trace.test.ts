import { describe, expect, it } from 'vitest';
import { Secret } from '@queuebox/core';
import { httpDestination, outboxMessage } from '@queuebox/testing';
import { rawValues, send, sinkPerTest, testPublisher } from '../../test/publisher-harness.js';

/**
 * While tracing is on the publish span's context is the only trace context on the wire: a row's
 * copy (any letter case), a static header and an auth header of that name are dropped. While it
 * is off, `traceparent` is an ordinary header. Real sink, real undici.
 */
const http = sinkPerTest();

const OURS = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const ROW = '00-11111111111111111111111111111111-2222222222222222-01';
const STATIC = '00-33333333333333333333333333333333-4444444444444444-01';

describe('HTTP publisher and the trace context', () => {
  it('sends the span context once, in place of the row, static and auth copies', async () => {
    const publisher = http.keep(
      testPublisher({
        receiver: httpDestination({
          baseUrl: http.sink.url,
          headers: { traceparent: STATIC, 'X-Static': 'kept' },
          auth: { type: 'header', headerName: 'TraceState', headerValue: new Secret('auth=copy') },
        }),
      }),
    );
    const message = outboxMessage({
      headers: {
        TraceParent: ROW,
        tracestate: 'row=copy',
        'x-inbox-id': 'relayed',
        'x-row': 'kept',
      },
    });
    const outcome = await send(publisher, message, {
      traceHeaders: [
        ['traceparent', OURS],
        ['tracestate', 'ours=1'],
      ],
    });
    expect(outcome).toEqual({ ok: true });
    const [request] = http.sink.requests;
    expect(rawValues(request!.rawHeaders, 'traceparent')).toEqual([OURS]);
    expect(rawValues(request!.rawHeaders, 'tracestate')).toEqual(['ours=1']);
    expect(request!.headers['x-static']).toBe('kept');
    expect(request!.headers['x-row']).toBe('kept');
  });

  it('sends a row traceparent as it is while tracing is off', async () => {
    const publisher = http.keep(
      testPublisher({ receiver: httpDestination({ baseUrl: http.sink.url }) }),
    );
    await send(publisher, outboxMessage({ headers: { traceparent: ROW } }));
    expect(rawValues(http.sink.requests[0]!.rawHeaders, 'traceparent')).toEqual([ROW]);
  });
});
