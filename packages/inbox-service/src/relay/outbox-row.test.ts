import type { RelayClaimedMessage, SourceConfig } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { relayForward, relayHeaders, relayTopic } from './outbox-row.js';

function claimed(overrides: Partial<RelayClaimedMessage> = {}): RelayClaimedMessage {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    source: 'orders',
    idempotencyKey: 'key-1',
    aggregateId: 'order-1',
    eventType: 'order.created',
    headers: { 'content-type': 'application/json' },
    correlationId: 'corr-1',
    consumption: 'push',
    state: 'processing',
    createdAt: new Date(0),
    scheduledAt: new Date(0),
    attempt: 0,
    claimToken: '00000000-0000-4000-8000-00000000000f',
    ...overrides,
  };
}

const sources = (topic: string): Record<string, SourceConfig> => ({
  orders: { topic } as SourceConfig,
});

describe('relayTopic', () => {
  it("renders the source's template with the source and the event type, trimmed", () => {
    expect(relayTopic(claimed(), sources(' in.{{ source }}.{{eventType}} '))).toBe(
      'in.orders.order.created',
    );
  });

  it('falls back to {{ eventType }} for a source that is not configured, own keys only', () => {
    expect(relayTopic(claimed({ source: 'gone' }), sources('x'))).toBe('order.created');
    expect(relayTopic(claimed({ source: 'constructor' }), sources('x'))).toBe('order.created');
  });

  it('renders empty for a missing event type under an event-type template', () => {
    expect(relayTopic(claimed({ eventType: null }), sources('{{ eventType }}'))).toBe('');
    expect(relayTopic(claimed({ eventType: '  ' }), sources(' {{ eventType }} '))).toBe('');
  });
});

describe('relayHeaders', () => {
  /** The four relay headers: the `claimed()` row's id, source, key and correlation id. */
  const row = claimed();
  const RELAY_HEADERS = {
    'x-inbox-id': row.id,
    'x-source': row.source,
    'x-idempotency-key': row.idempotencyKey,
    'X-Correlation-Id': row.correlationId,
  };

  it('keeps the received headers and adds the four relay headers', () => {
    expect(relayHeaders(claimed())).toEqual({
      'content-type': 'application/json',
      ...RELAY_HEADERS,
    });
  });

  it('drops sender copies of the relay headers in any letter case', () => {
    const headers = relayHeaders(
      claimed({
        headers: {
          'X-INBOX-ID': 'forged',
          'x-Source': 'forged',
          'X-Idempotency-Key': 'forged',
          'x-correlation-id': 'forged',
          'x-other': 'kept',
        },
      }),
    );
    expect(headers).toEqual({ 'x-other': 'kept', ...RELAY_HEADERS });
  });

  it('sets X-Correlation-Id only when the row has one, and still drops a sent one', () => {
    const headers = relayHeaders(
      claimed({ correlationId: null, headers: { 'X-Correlation-Id': 'sent' } }),
    );
    expect(Object.keys(headers)).toEqual(['x-inbox-id', 'x-source', 'x-idempotency-key']);
  });

  it('does not copy the framing and hop-by-hop headers of the received request', () => {
    const headers = relayHeaders(
      claimed({
        correlationId: null,
        headers: {
          host: 'queuebox.internal:8080',
          'content-length': '120',
          'Transfer-Encoding': 'chunked',
          connection: 'keep-alive, X-Hop',
          'x-hop': 'nominated by Connection',
          'keep-alive': 'timeout=5',
          expect: '100-continue',
          te: 'trailers',
          trailer: 'X-Checksum',
          upgrade: 'h2c',
          'proxy-connection': 'keep-alive',
          'Proxy-Authorization': 'Basic eDp5',
          'content-type': 'application/json',
          'user-agent': 'stripe/1.0',
        },
      }),
    );
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'stripe/1.0',
      'x-inbox-id': '00000000-0000-4000-8000-000000000001',
      'x-source': 'orders',
      'x-idempotency-key': 'key-1',
    });
  });

  it('keeps a received __proto__ header a plain key', () => {
    const received = JSON.parse('{"__proto__":"p","a":"b"}') as Record<string, string>;
    const headers = relayHeaders(claimed({ headers: received }));
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
    expect(Object.hasOwn(headers, '__proto__')).toBe(true);
    expect(JSON.stringify(headers)).toContain('"__proto__":"p","a":"b"');
  });
});

describe('relayForward', () => {
  it('builds the outbox row of spec §8.3 under the claim fence', () => {
    const m = claimed();
    const forward = relayForward(m, 'order.created', 9);
    expect(forward.fence).toEqual({ id: m.id, claimToken: m.claimToken });
    expect(forward.outbox).toMatchObject({
      topic: 'order.created',
      key: 'order-1',
      maxAttempts: 9,
      headers: relayHeaders(m),
    });
    expect(forward.outbox.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(forward.outbox.id).not.toBe(m.id);
    expect(forward.outbox.aggregateType).toBeUndefined();
    // The store copies the stored payload itself (spec §8.3: the relay runs no transform).
    expect('payload' in forward.outbox).toBe(false);
    expect(relayForward(m, 't', 9).outbox.id).not.toBe(forward.outbox.id);
  });
});
