import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { JsonPayload, Secret } from '@queuebox/core';
import { httpDestination, outboxMessage } from '@queuebox/testing';
import { createHttpPublisher } from './http-publisher.js';
import { createWebhookSigner, signingKey, webhookSignature } from './webhook-signer.js';
import { rawValues, send, sinkPerTest } from '../../test/publisher-harness.js';

/** The example the Standard Webhooks specification publishes. */
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: '1614265330',
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

describe('Standard Webhooks signature', () => {
  it('reproduces the specification’s published example', () => {
    expect(
      webhookSignature(signingKey(VECTOR.secret), VECTOR.id, VECTOR.timestamp, VECTOR.body),
    ).toBe(VECTOR.signature);
    // The prefix is optional, as the scheme's libraries read it.
    expect(
      webhookSignature(
        signingKey(VECTOR.secret.slice('whsec_'.length)),
        VECTOR.id,
        VECTOR.timestamp,
        VECTOR.body,
      ),
    ).toBe(VECTOR.signature);
  });

  it('signs at the clock’s second, one signature per secret, in order', () => {
    const list: string[] = [];
    const other = newSecret();
    const sign = createWebhookSigner(
      { scheme: 'standard-webhooks', secrets: [new Secret(VECTOR.secret), new Secret(other)] },
      { now: () => new Date(Number(VECTOR.timestamp) * 1000 + 999) },
    );
    sign(VECTOR.id, VECTOR.body, list);
    expect(list.slice(0, 4)).toEqual([
      'webhook-id',
      VECTOR.id,
      'webhook-timestamp',
      VECTOR.timestamp,
    ]);
    expect(list[4]).toBe('webhook-signature');
    const signatures = (list[5] ?? '').split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures[0]).toBe(VECTOR.signature);
    expect(signatures[1]).toBe(
      webhookSignature(signingKey(other), VECTOR.id, VECTOR.timestamp, VECTOR.body),
    );
  });
});

describe('HTTP publisher with signing', () => {
  const http = sinkPerTest();

  const signingPublisher = (secrets: readonly string[], headers: Record<string, string> = {}) =>
    http.keep(
      createHttpPublisher({
        config: {
          destinations: {
            receiver: httpDestination({
              baseUrl: http.sink.url,
              timeoutMs: 5000,
              headers,
              signing: { scheme: 'standard-webhooks', secrets: secrets.map((s) => new Secret(s)) },
            }),
          },
          http: { maxErrorBodyBytes: 2048, blockPrivateAddresses: false },
          outbox: { concurrency: 2 },
        },
      }),
    );

  it('sends a request the standardwebhooks package verifies, over the exact bytes sent', async () => {
    const secret = newSecret();
    const target = signingPublisher([secret]);
    const message = outboxMessage({
      payload: JsonPayload.fromText('{ "amount" : 1.50, "note": "caf\u00e9 \u2603" }'),
    });
    expect(await send(target, message)).toEqual({ ok: true });
    const [request] = http.sink.requests;
    expect(request).toBeDefined();
    if (request === undefined) return;
    // The stored text goes as it is, whitespace and all, and that is what is signed.
    expect(request.body).toBe('{ "amount" : 1.50, "note": "caf\u00e9 \u2603" }');
    expect(request.headers['webhook-id']).toBe(message.id);
    const sent = Number(request.headers['webhook-timestamp']);
    expect(Math.abs(sent - Date.now() / 1000)).toBeLessThan(60);
    const verified = new Webhook(secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    });
    expect(verified).toEqual({ amount: 1.5, note: 'caf\u00e9 \u2603' });
    // Another secret, or another body, does not verify.
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    expect(() => new Webhook(newSecret()).verify(request.body, headers)).toThrow();
    expect(() =>
      new Webhook(secret).verify(request.body.replace('1.50', '1.5'), headers),
    ).toThrow();
  });

  it('signs a transform’s output, the payload actually sent', async () => {
    const secret = newSecret();
    const target = signingPublisher([secret]);
    const message = outboxMessage({ payload: JsonPayload.fromText('{"a":1}') });
    const transformed = JsonPayload.fromValue({ wrapped: { a: 1 } });
    expect(await send(target, message, { payload: transformed })).toEqual({ ok: true });
    const request = http.sink.requests[0];
    if (request === undefined) throw new Error('no request');
    expect(JSON.parse(request.body)).toEqual({ wrapped: { a: 1 } });
    expect(
      new Webhook(secret).verify(request.body, {
        'webhook-id': message.id,
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }),
    ).toEqual({ wrapped: { a: 1 } });
  });

  it('during a rotation, each secret alone verifies the request', async () => {
    const [old, next] = [newSecret(), newSecret()];
    const target = signingPublisher([old, next]);
    const message = outboxMessage();
    expect(await send(target, message)).toEqual({ ok: true });
    const request = http.sink.requests[0];
    if (request === undefined) throw new Error('no request');
    const headers = {
      'webhook-id': message.id,
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(old).verify(request.body, headers)).not.toThrow();
    expect(() => new Webhook(next).verify(request.body, headers)).not.toThrow();
  });

  it('sends its own signing headers once: a row’s or a static copy never travels beside them', async () => {
    const secret = newSecret();
    const target = signingPublisher([secret], {
      'Webhook-Signature': 'v1,static',
      'X-Kept': 'yes',
    });
    const message = outboxMessage({
      headers: {
        'webhook-id': 'msg_forged',
        'WEBHOOK-TIMESTAMP': '1',
        'webhook-signature': 'v1,forged',
        'x-inbox-id': 'relayed',
      },
    });
    expect(await send(target, message)).toEqual({ ok: true });
    const request = http.sink.requests[0];
    if (request === undefined) throw new Error('no request');
    expect(rawValues(request.rawHeaders, 'webhook-id')).toEqual([message.id]);
    expect(rawValues(request.rawHeaders, 'webhook-timestamp')).toHaveLength(1);
    expect(rawValues(request.rawHeaders, 'webhook-signature')).toHaveLength(1);
    expect(request.headers['x-kept']).toBe('yes');
    expect(() =>
      new Webhook(secret).verify(request.body, {
        'webhook-id': message.id,
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }),
    ).not.toThrow();
  });

  it('leaves a destination without signing as it was: a row’s webhook headers pass through', async () => {
    const target = http.keep(
      createHttpPublisher({
        config: {
          destinations: { receiver: httpDestination({ baseUrl: http.sink.url, timeoutMs: 5000 }) },
          http: { maxErrorBodyBytes: 2048, blockPrivateAddresses: false },
          outbox: { concurrency: 2 },
        },
      }),
    );
    const message = outboxMessage({ headers: { 'webhook-id': 'msg_app' } });
    expect(await send(target, message)).toEqual({ ok: true });
    const request = http.sink.requests[0];
    if (request === undefined) throw new Error('no request');
    expect(rawValues(request.rawHeaders, 'webhook-id')).toEqual(['msg_app']);
    expect(rawValues(request.rawHeaders, 'webhook-signature')).toEqual([]);
  });
});
