import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { postJson } from './http-calls.js';
import { eventually } from './service.js';
import { sinkService } from './sink-service.js';
import { FAST_RELAY, httpSink } from './yaml-blocks.js';

const { ready, pgUrl } = await e2eServices('app: inbox end to end');
const SECRET = 'whsec_test';

/**
 * The inbox through the real server: a signed webhook is stored once, the relay forwards it into
 * the outbox, and the outbox delivers it to a real HTTP sink with the relay headers.
 */
describe.skipIf(!ready)('webhook to HTTP sink', () => {
  const h = sinkService(
    pgUrl,
    (sinkUrl) => `
${FAST_RELAY}
outbox:
  pollIntervalMs: 50
destinations:
${httpSink(sinkUrl)}
routes:
  - topicPattern: "**"
    destination: sink
sources:
  stripe:
    path: /stripe
    idempotencyKeyPath: $.id
    eventTypePath: $.type
    aggregateIdPath: $.customer
    auth:
      type: hmac
      secret: ${SECRET}
      headerName: X-Hub-Signature-256
`,
  );

  const post = (body: object, headers: Record<string, string> = {}) =>
    postText(JSON.stringify(body), headers);
  /** Posts this exact text, signed: numbers as the sender wrote them. */
  const postText = (text: string, headers: Record<string, string> = {}) => {
    const signature = `sha256=${createHmac('sha256', SECRET).update(text).digest('hex')}`;
    return postJson(`${h.service.base}/inbox/stripe`, text, {
      'X-Hub-Signature-256': signature,
      ...headers,
    });
  };

  it('stores the same webhook once: 202, then 200 duplicate', async () => {
    const body = { id: 'evt_dup', type: 'payment.succeeded', customer: 'cus_dup' };
    const first = await post(body);
    expect(first.status).toBe(202);
    const { messageId } = (await first.json()) as { messageId: string };
    const second = await post(body);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ status: 'duplicate' });
    const rows = await h.db.sql<
      { id: string }[]
    >`SELECT id FROM inbox WHERE source = 'stripe' AND idempotency_key = 'evt_dup'`;
    expect(rows.map((r) => r.id)).toEqual([messageId]);
  });

  it('refuses a tampered signature with 401 and stores nothing', async () => {
    const res = await fetch(`${h.service.base}/inbox/stripe`, {
      method: 'POST',
      body: '{"id":"evt_bad","type":"x"}',
      headers: { 'X-Hub-Signature-256': 'sha256=00' },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'Invalid signature' });
    const rows = await h.db.sql`SELECT 1 FROM inbox WHERE idempotency_key = 'evt_bad'`;
    expect(rows).toHaveLength(0);
  });

  it('stops reading a chunked body past the cap with 413, and the next request is served', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        // Endless unless QueueBox stops reading; 64 MiB is far past the 1 MiB cap.
        if (sent > 64 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${h.service.base}/inbox/stripe`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'Request body exceeds 1048576 bytes' });
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    const next = await post({ id: 'evt_after_413', type: 'x', customer: 'c' });
    expect(next.status).toBe(202);
  });

  it('delivers the webhook to the sink with the relay headers and the correlation id', async () => {
    const res = await post(
      { id: 'evt_e2e', type: 'payment.succeeded', customer: 'cus_1' },
      { 'X-Correlation-Id': 'corr-e2e', 'x-source': 'spoofed' },
    );
    expect(res.status).toBe(202);
    expect(res.headers.get('x-correlation-id')).toBe('corr-e2e');
    const { messageId } = (await res.json()) as { messageId: string };
    const delivered = await eventually(() =>
      h.sink.requests.find((r) => r.headers['x-inbox-id'] === messageId),
    );
    expect(delivered.headers['x-source']).toBe('stripe');
    expect(delivered.headers['x-idempotency-key']).toBe('evt_e2e');
    expect(delivered.headers['x-correlation-id']).toBe('corr-e2e');
    expect(delivered.headers['x-topic']).toBe('payment.succeeded');
    expect(delivered.headers['x-message-key']).toBe('cus_1');
    expect(delivered.headers['x-message-id']).not.toBe(messageId);
    expect(JSON.parse(delivered.body)).toEqual({
      id: 'evt_e2e',
      type: 'payment.succeeded',
      customer: 'cus_1',
    });
    const [inbox] = await h.db.sql<
      { state: string }[]
    >`SELECT state FROM inbox WHERE id = ${messageId}`;
    expect(inbox?.state).toBe('processed');
  });

  it('delivers the messages of one aggregate in the order they arrived', async () => {
    for (let step = 1; step <= 5; step++) {
      expect(
        (await post({ id: `evt_order_${step}`, type: 'order.step', customer: 'cus_order', step }))
          .status,
      ).toBe(202);
    }
    const steps = await eventually(() => {
      const seen = h.sink.requests
        .filter((r) => r.headers['x-message-key'] === 'cus_order')
        .map((r) => (JSON.parse(r.body) as { step: number }).step);
      return seen.length === 5 ? seen : undefined;
    });
    expect(steps).toEqual([1, 2, 3, 4, 5]);
  });

  it('delivers the numbers as jsonb holds them: received text in, stored text out', async () => {
    const res = await postText(
      '{"id": 12345678901234567890, "type": "num.test", "customer": "cus_num", "amount": 1.50, "big": 1e30, "huge": 1e400}',
    );
    expect(res.status).toBe(202);
    const { messageId } = (await res.json()) as { messageId: string };
    const [stored] = await h.db.sql<{ key: string; text: string }[]>`
      SELECT idempotency_key AS key, payload::text AS text FROM inbox WHERE id = ${messageId}`;
    expect(stored!.key).toBe('12345678901234567890');
    const delivered = await eventually(() =>
      h.sink.requests.find((r) => r.headers['x-inbox-id'] === messageId),
    );
    expect(delivered.headers['x-idempotency-key']).toBe('12345678901234567890');
    expect(delivered.body).toBe(stored!.text);
    expect(delivered.body).toBe(
      `{"id": 12345678901234567890, "big": 1000000000000000000000000000000, "huge": 1${'0'.repeat(400)}, "type": "num.test", "amount": 1.50, "customer": "cus_num"}`,
    );
  });

  it('keeps two events whose ids differ only past 2^53 as two rows', async () => {
    const first = await postText('{"id": 9007199254740993, "type": "num.near", "customer": "c"}');
    const second = await postText('{"id": 9007199254740992, "type": "num.near", "customer": "c"}');
    expect([first.status, second.status]).toEqual([202, 202]);
    const rows = await h.db.sql<{ key: string }[]>`
      SELECT idempotency_key AS key FROM inbox WHERE event_type = 'num.near' ORDER BY key`;
    expect(rows.map((r) => r.key)).toEqual(['9007199254740992', '9007199254740993']);
    const repeat = await postText('{"id": 9007199254740993, "type": "num.near", "customer": "c"}');
    expect(repeat.status).toBe(200);
  });
});
