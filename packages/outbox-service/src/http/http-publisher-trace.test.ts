import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Secret, type Publisher } from '@queuebox/core';
import { httpDestination, outboxMessage, startHttpSink, type HttpSink } from '@queuebox/testing';
import { rawValues, send, testPublisher } from '../../test/publisher-harness.js';

/**
 * While tracing is on the publish span's context is the only trace context on the wire: a row's
 * copy (any letter case), a static header and an auth header of that name are dropped. While it
 * is off, `traceparent` is an ordinary header. Real sink, real undici.
 */
let sink: HttpSink;
let publisher: Publisher | undefined;

beforeEach(async () => {
  sink = await startHttpSink();
});

afterEach(async () => {
  await publisher?.close();
  publisher = undefined;
  await sink.close();
});

const OURS = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const ROW = '00-11111111111111111111111111111111-2222222222222222-01';
const STATIC = '00-33333333333333333333333333333333-4444444444444444-01';

describe('HTTP publisher and the trace context', () => {
  it('sends the span context once, in place of the row, static and auth copies', async () => {
    publisher = testPublisher({
      receiver: httpDestination({
        baseUrl: sink.url,
        headers: { traceparent: STATIC, 'X-Static': 'kept' },
        auth: { type: 'header', headerName: 'TraceState', headerValue: new Secret('auth=copy') },
      }),
    });
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
    const [request] = sink.requests;
    expect(rawValues(request!.rawHeaders, 'traceparent')).toEqual([OURS]);
    expect(rawValues(request!.rawHeaders, 'tracestate')).toEqual(['ours=1']);
    expect(request!.headers['x-static']).toBe('kept');
    expect(request!.headers['x-row']).toBe('kept');
  });

  it('sends a row traceparent as it is while tracing is off', async () => {
    publisher = testPublisher({ receiver: httpDestination({ baseUrl: sink.url }) });
    await send(publisher, outboxMessage({ headers: { traceparent: ROW } }));
    expect(rawValues(sink.requests[0]!.rawHeaders, 'traceparent')).toEqual([ROW]);
  });
});
