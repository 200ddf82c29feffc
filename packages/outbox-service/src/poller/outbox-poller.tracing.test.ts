import { publishFailed } from '@queuebox/core';
import { afterEach, describe, expect, it } from 'vitest';
import { FakePublisher, RecordingTracing, until } from '@queuebox/testing';
import { fakeRouter } from '../../test/poller-fakes.js';
import { pollerHarness, type PollerHarness } from '../../test/poller-harness.js';

let h: PollerHarness | undefined;
afterEach(async () => {
  await h?.poller.close();
  h = undefined;
});

const ROW_PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('OutboxPoller with tracing on', () => {
  it('publishes under a producer span whose parent is the row and whose context goes to the publisher', async () => {
    const tracing = new RecordingTracing();
    h = pollerHarness({ tracing });
    const [id] = await h.insert({
      topic: 'order.created',
      payload: {},
      headers: { TraceParent: ROW_PARENT, 'X-Correlation-Id': 'corr-1' },
    });
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 1, 5_000, 'the row sent');
    await until(() => tracing.spans[0]?.ended === true, 5_000, 'the span ended');

    const [span] = tracing.spans;
    expect(span).toMatchObject({
      name: 'publish orders',
      kind: 'producer',
      parent: { TraceParent: ROW_PARENT, 'X-Correlation-Id': 'corr-1' },
      attributes: {
        'messaging.system': 'http',
        'messaging.operation.type': 'send',
        'messaging.destination.name': 'orders',
        'messaging.message.id': id,
        'messaging.message.conversation_id': 'corr-1',
        'queuebox.topic': 'order.created',
        'queuebox.attempt': 0,
        'queuebox.outcome': 'sent',
      },
      failures: [],
    });
    expect(span!.events.map((e) => e.name)).toEqual(['queuebox.claim', 'queuebox.complete']);
    expect(h.publisher.requests[0]!.traceHeaders).toEqual([['traceparent', span!.traceparent]]);
  });

  it('records a retry with the sanitized reason, and a row without a route as dead', async () => {
    const tracing = new RecordingTracing();
    h = pollerHarness({
      tracing,
      router: fakeRouter({ 'order.created': { destination: 'orders' } }),
      publishers: [
        new FakePublisher('http', 'all', () => ({
          ok: false as const,
          error: publishFailed('HTTP 500: {"password":"hunter2"}'),
        })),
      ],
    });
    await h.insert({ topic: 'order.created', payload: {} }, { topic: 'nowhere', payload: {} });
    h.poller.start();
    await until(
      () => tracing.spans.length === 2 && tracing.spans.every((s) => s.ended),
      5_000,
      'two spans ended',
    );
    const retry = tracing.spans.find((s) => s.name === 'publish orders')!;
    expect(retry.attributes['queuebox.outcome']).toBe('retry');
    expect(retry.failures.length).toBeGreaterThan(0);
    for (const text of retry.failures) expect(text).not.toContain('hunter2');
    const dead = tracing.spans.find((s) => s.name === 'publish')!;
    expect(dead.attributes['queuebox.outcome']).toBe('dead');
    expect(dead.attributes['messaging.destination.name']).toBeUndefined();
    expect(dead.parent).toEqual({});
  });

  it('passes no trace context to the publisher while tracing is off', async () => {
    h = pollerHarness();
    await h.insert({ topic: 'order.created', payload: {}, headers: { traceparent: ROW_PARENT } });
    h.poller.start();
    await until(() => h!.store.byState('sent').length === 1, 5_000, 'the row sent');
    expect(h.publisher.requests[0]!.traceHeaders).toBeUndefined();
    expect(h.publisher.requests[0]!.message.headers).toEqual({ traceparent: ROW_PARENT });
  });
});
