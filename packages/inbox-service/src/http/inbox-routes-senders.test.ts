import { createHmac, randomBytes } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { Secret, type SenderAuthConfig } from '@queuebox/core';
import { httpSource } from '@queuebox/testing';
import { NOW, setup } from '../../test/route-harness.js';

/**
 * The common senders' own schemes, with requests signed by each sender's own library where npm
 * has one (Shopify publishes none that signs outside a whole app, so its HMAC is built here).
 * Every failure is a 401 that names what is wrong, and leaves no row.
 */
const whsec = (): string => `whsec_${randomBytes(24).toString('base64')}`;
const NOW_SECONDS = Math.floor(NOW / 1000);

function source(auth: SenderAuthConfig, key: Record<string, unknown>) {
  return httpSource({ path: '/hook', eventTypePath: ['$.type'], auth, ...key });
}

async function expect401(response: Response, error: string): Promise<void> {
  expect(response.status).toBe(401);
  expect(await response.json()).toEqual({ error });
}

/** The stored headers of the only row, lower-cased names. */
function storedHeaderNames(t: ReturnType<typeof setup>): string[] {
  expect(t.store.rows).toHaveLength(1);
  const headers = t.store.rows[0]?.message.headers ?? {};
  return Object.keys(headers as Record<string, unknown>).map((name) => name.toLowerCase());
}

describe('auth.type standard-webhooks', () => {
  const body = '{"type":"invoice.paid", "amount": 1.50}';
  const signed = (secret: string, id: string, seconds: number, payload = body) => ({
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': new Webhook(secret).sign(id, new Date(seconds * 1000), payload),
  });
  const auth = (secrets: string[]): SenderAuthConfig => ({
    type: 'standard-webhooks',
    secrets: secrets.map((s) => new Secret(s)),
    timestampToleranceMs: 300_000,
  });

  it('accepts what the standardwebhooks package signs, keyed by webhook-id, without the signature', async () => {
    const secret = whsec();
    const t = setup({ s: source(auth([secret]), { idempotencyKeyHeader: 'webhook-id' }) });
    const response = await t.post('/inbox/hook', body, signed(secret, 'msg_1', NOW_SECONDS - 10));
    expect(response.status).toBe(202);
    expect(t.store.rows[0]?.message.idempotencyKey).toBe('msg_1');
    const names = storedHeaderNames(t);
    expect(names).toContain('webhook-id');
    expect(names).not.toContain('webhook-signature');
  });

  it('accepts any of several secrets during a rotation, and several signatures from the sender', async () => {
    const [old, next] = [whsec(), whsec()];
    const t = setup({ s: source(auth([old, next]), { idempotencyKeyHeader: 'webhook-id' }) });
    expect((await t.post('/inbox/hook', body, signed(next, 'a', NOW_SECONDS))).status).toBe(202);
    const two = signed(old, 'b', NOW_SECONDS);
    const other = signed(whsec(), 'b', NOW_SECONDS)['webhook-signature'];
    two['webhook-signature'] = `${other} ${two['webhook-signature']}`;
    expect((await t.post('/inbox/hook', body, two)).status).toBe(202);
    expect(t.store.rows).toHaveLength(2);
  });

  it('refuses a replay past the tolerance, a wrong secret, another body and a missing header', async () => {
    const secret = whsec();
    const t = setup({ s: source(auth([secret]), { idempotencyKeyHeader: 'webhook-id' }) });
    await expect401(
      await t.post('/inbox/hook', body, signed(secret, 'm', NOW_SECONDS - 301)),
      'Request timestamp too old: outside the 300000 ms tolerance',
    );
    await expect401(
      await t.post('/inbox/hook', body, signed(secret, 'm', NOW_SECONDS + 301)),
      'Request timestamp too new: outside the 300000 ms tolerance',
    );
    const invalid =
      'Invalid signature: no webhook-signature matches the body with a configured secret';
    await expect401(await t.post('/inbox/hook', body, signed(whsec(), 'm', NOW_SECONDS)), invalid);
    await expect401(
      await t.post('/inbox/hook', body, signed(secret, 'm', NOW_SECONDS, '{"type":"x"}')),
      invalid,
    );
    // The id is signed too: another id with the same signature fails.
    await expect401(
      await t.post('/inbox/hook', body, {
        ...signed(secret, 'm', NOW_SECONDS),
        'webhook-id': 'other',
      }),
      invalid,
    );
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const headers: Record<string, string> = signed(secret, 'm', NOW_SECONDS);
      delete headers[name];
      await expect401(await t.post('/inbox/hook', body, headers), `Missing ${name} header`);
    }
    await expect401(
      await t.post('/inbox/hook', body, {
        ...signed(secret, 'm', NOW_SECONDS),
        'webhook-timestamp': '2026-03-01T12:00:00Z',
      }),
      'Invalid webhook-timestamp: not whole seconds since the epoch',
    );
    expect(t.store.rows).toHaveLength(0);
  });
});

describe('auth.type stripe', () => {
  const body = '{"id":"evt_1NG8Du2eZvKYlo2CUI79vXWy","type":"payment_intent.succeeded"}';
  const auth = (secrets: string[], toleranceMs = 300_000): SenderAuthConfig => ({
    type: 'stripe',
    secrets: secrets.map((s) => new Secret(s)),
    timestampToleranceMs: toleranceMs,
  });
  const header = (secret: string, timestamp = NOW_SECONDS, payload = body) =>
    Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });

  it('accepts what the stripe package signs, keyed by the event id in the body', async () => {
    const secret = whsec();
    const t = setup({ s: source(auth([secret]), { idempotencyKeyPath: ['$.id'] }) });
    const response = await t.post('/inbox/hook', body, { 'Stripe-Signature': header(secret) });
    expect(response.status).toBe(202);
    expect(t.store.rows[0]?.message.idempotencyKey).toBe('evt_1NG8Du2eZvKYlo2CUI79vXWy');
    expect(storedHeaderNames(t)).not.toContain('stripe-signature');
  });

  it('refuses a replay past the tolerance, a wrong secret, another body and a missing header', async () => {
    const secret = whsec();
    const t = setup({
      s: source(auth([whsec(), secret], 60_000), { idempotencyKeyPath: ['$.id'] }),
    });
    await expect401(
      await t.post('/inbox/hook', body, { 'Stripe-Signature': header(secret, NOW_SECONDS - 61) }),
      'Request timestamp too old: outside the 60000 ms tolerance',
    );
    const invalid = 'Invalid signature: no v1 signature matches the body with a configured secret';
    await expect401(
      await t.post('/inbox/hook', body, { 'Stripe-Signature': header(whsec()) }),
      invalid,
    );
    await expect401(
      await t.post('/inbox/hook', body, {
        'Stripe-Signature': header(secret, NOW_SECONDS, body.replace('succeeded', 'failed')),
      }),
      invalid,
    );
    await expect401(await t.post('/inbox/hook', body), 'Missing Stripe-Signature header');
    await expect401(
      await t.post('/inbox/hook', body, { 'Stripe-Signature': `t=${NOW_SECONDS}` }),
      'No v1 signature in the Stripe-Signature header',
    );
    await expect401(
      await t.post('/inbox/hook', body, {
        'Stripe-Signature': header(secret).replace(/^t=\d+,/, ''),
      }),
      'No timestamp (t=) in the Stripe-Signature header',
    );
    expect(t.store.rows).toHaveLength(0);
    // Within the tolerance, with the second secret, it passes.
    const ok = await t.post('/inbox/hook', body, {
      'Stripe-Signature': header(secret, NOW_SECONDS - 59),
    });
    expect(ok.status).toBe(202);
  });
});

describe('auth.type github', () => {
  const body = '{ "zen": "Keep it logically awesome.",\n  "type": "ping" }';
  const auth = (secrets: string[]): SenderAuthConfig => ({
    type: 'github',
    secrets: secrets.map((s) => new Secret(s)),
  });

  it('accepts what @octokit/webhooks-methods signs, keyed by X-GitHub-Delivery', async () => {
    const secret = "It's a Secret to Everybody";
    const t = setup({ s: source(auth([secret]), { idempotencyKeyHeader: 'X-GitHub-Delivery' }) });
    const response = await t.post('/inbox/hook', body, {
      'X-Hub-Signature-256': await githubSign(secret, body),
      'X-Hub-Signature': 'sha1=not-read-and-not-stored',
      'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    });
    expect(response.status).toBe(202);
    expect(t.store.rows[0]?.message.idempotencyKey).toBe('72d3162e-cc78-11e3-81ab-4c9367dc0958');
    const names = storedHeaderNames(t);
    expect(names).not.toContain('x-hub-signature-256');
    expect(names).not.toContain('x-hub-signature');
  });

  it('refuses a wrong secret, another body and a missing header', async () => {
    const t = setup({
      s: source(auth(['s1', 's2']), { idempotencyKeyHeader: 'X-GitHub-Delivery' }),
    });
    const invalid =
      'Invalid signature: X-Hub-Signature-256 does not match the body with a configured secret';
    const delivery = { 'X-GitHub-Delivery': 'd' };
    await expect401(
      await t.post('/inbox/hook', body, {
        ...delivery,
        'X-Hub-Signature-256': await githubSign('s3', body),
      }),
      invalid,
    );
    await expect401(
      await t.post('/inbox/hook', body, {
        ...delivery,
        'X-Hub-Signature-256': await githubSign('s1', `${body} `),
      }),
      invalid,
    );
    await expect401(
      await t.post('/inbox/hook', body, delivery),
      'Missing X-Hub-Signature-256 header',
    );
    expect(t.store.rows).toHaveLength(0);
    const ok = await t.post('/inbox/hook', body, {
      ...delivery,
      'X-Hub-Signature-256': await githubSign('s2', body),
    });
    expect(ok.status).toBe(202);
  });
});

describe('auth.type shopify', () => {
  const body = '{"id":820982911946154500,"type":"orders/create"}';
  const hmac = (secret: string, payload = body) =>
    createHmac('sha256', secret).update(payload, 'utf8').digest('base64');
  const auth: SenderAuthConfig = { type: 'shopify', secrets: [new Secret('shpss_secret')] };

  it('accepts the base64 HMAC of the raw body, and does not store it', async () => {
    const t = setup({ s: source(auth, { idempotencyKeyHeader: 'X-Shopify-Webhook-Id' }) });
    const response = await t.post('/inbox/hook', body, {
      'X-Shopify-Hmac-Sha256': hmac('shpss_secret'),
      'X-Shopify-Webhook-Id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    });
    expect(response.status).toBe(202);
    expect(storedHeaderNames(t)).not.toContain('x-shopify-hmac-sha256');
  });

  it('refuses a wrong secret, another body and a missing header', async () => {
    const t = setup({ s: source(auth, { idempotencyKeyHeader: 'X-Shopify-Webhook-Id' }) });
    const id = { 'X-Shopify-Webhook-Id': 'w' };
    const invalid =
      'Invalid signature: X-Shopify-Hmac-Sha256 does not match the body with a configured secret';
    await expect401(
      await t.post('/inbox/hook', body, { ...id, 'X-Shopify-Hmac-Sha256': hmac('other') }),
      invalid,
    );
    await expect401(
      await t.post('/inbox/hook', body, {
        ...id,
        'X-Shopify-Hmac-Sha256': hmac('shpss_secret', '{}'),
      }),
      invalid,
    );
    await expect401(await t.post('/inbox/hook', body, id), 'Missing X-Shopify-Hmac-Sha256 header');
    expect(t.store.rows).toHaveLength(0);
  });
});
