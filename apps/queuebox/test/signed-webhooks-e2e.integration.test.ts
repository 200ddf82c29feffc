import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { postJson } from './http-calls.js';
import { eventually } from './service.js';
import { sinkService } from './sink-service.js';
import { FAST_RELAY } from './yaml-blocks.js';

const { ready, pgUrl } = await e2eServices('app: signed webhooks end to end');
const STRIPE_SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const SIGNING_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

/**
 * From the YAML on: a webhook the stripe package signs is verified and keyed by its event id
 * (the source names no key), the relay forwards it, and the outbox delivers it to a real HTTP
 * sink signed with Standard Webhooks, which the standardwebhooks package verifies. Stripe's
 * signature never reaches the sink.
 */
describe.skipIf(!ready)('Stripe webhook in, Standard Webhooks out', () => {
  const h = sinkService(
    pgUrl,
    (sinkUrl) => `
${FAST_RELAY}
outbox:
  pollIntervalMs: 50
destinations:
  partner:
    type: http
    baseUrl: ${sinkUrl}
    signing:
      scheme: standard-webhooks
      secret: ${SIGNING_SECRET}
routes:
  - topicPattern: "**"
    destination: partner
sources:
  stripe:
    path: /stripe
    eventTypePath: $.type
    auth:
      type: stripe
      secret: ${STRIPE_SECRET}
`,
  );

  const post = (text: string, signature: string | null) =>
    postJson(
      `${h.service.base}/inbox/stripe`,
      text,
      signature === null ? {} : { 'Stripe-Signature': signature },
    );

  it('stores once by the event id and delivers a request the receiver can verify', async () => {
    const text = '{"id":"evt_e2e_signed","type":"invoice.paid","amount":1.50}';
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload: text,
      secret: STRIPE_SECRET,
    });
    const first = await post(text, signature);
    expect(first.status).toBe(202);
    const { messageId } = (await first.json()) as { messageId: string };
    // Stripe's retry of the same event is a duplicate.
    expect((await post(text, signature)).status).toBe(200);
    const stored = await h.db.sql<{ idempotency_key: string; headers: Record<string, unknown> }[]>`
      SELECT idempotency_key, headers FROM inbox WHERE id = ${messageId}`;
    expect(stored[0]?.idempotency_key).toBe('evt_e2e_signed');
    expect(Object.keys(stored[0]?.headers ?? {}).map((n) => n.toLowerCase())).not.toContain(
      'stripe-signature',
    );

    const delivered = await eventually(() =>
      h.sink.requests.find((r) => r.headers['x-inbox-id'] === messageId),
    );
    expect(delivered.headers['stripe-signature']).toBeUndefined();
    expect(delivered.headers['webhook-id']).toBe(delivered.headers['x-message-id']);
    const verified = new Webhook(SIGNING_SECRET).verify(delivered.body, {
      'webhook-id': String(delivered.headers['webhook-id']),
      'webhook-timestamp': String(delivered.headers['webhook-timestamp']),
      'webhook-signature': String(delivered.headers['webhook-signature']),
    });
    expect(verified).toEqual({ id: 'evt_e2e_signed', type: 'invoice.paid', amount: 1.5 });
  });

  it('refuses a replay past the tolerance with 401 and stores nothing', async () => {
    const text = '{"id":"evt_e2e_old","type":"invoice.paid"}';
    const old = Stripe.webhooks.generateTestHeaderString({
      payload: text,
      secret: STRIPE_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    const response = await post(text, old);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: 'Request timestamp too old: outside the 300000 ms tolerance',
    });
    expect(await h.db.sql`SELECT 1 FROM inbox WHERE idempotency_key = 'evt_e2e_old'`).toHaveLength(
      0,
    );
  });
});
