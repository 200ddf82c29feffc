/**
 * The signature schemes of the common webhook senders (`auth.type` of an HTTP source):
 * Standard Webhooks, Stripe, GitHub and Shopify. Each is computed over the raw bytes read and
 * compared in constant time against every configured secret (several during a rotation) and every
 * signature the request carries (a sender rotating its own secret sends several). A timestamp the
 * sender signs must lie within `timestampToleranceMs` of now, either way, so a captured request
 * cannot be replayed later. Each 401 reason names the check that failed, never a secret.
 */
import { createHmac } from 'node:crypto';
import type { Clock, SenderAuthConfig } from '@queuebox/core';
import { constantTimeEquals } from './constant-time.js';
import type { AuthResult, AuthValidator, HeaderLookup } from './auth-validator.js';

const OK: AuthResult = { ok: true };
const fail = (reason: string): AuthResult => ({ ok: false, reason });

/** Whole seconds since the epoch, as Standard Webhooks and Stripe write their timestamps. */
const SECONDS = /^\d{1,15}$/;

type Digest = 'hex' | 'base64';

function hmac(key: Buffer, prefix: string | null, body: Uint8Array, digest: Digest): string {
  const mac = createHmac('sha256', key);
  if (prefix !== null) mac.update(prefix, 'utf8');
  return mac.update(body).digest(digest);
}

/** Whether any presented signature equals the one computed with any key; all compared in full. */
function anyMatches(
  presented: readonly string[],
  keys: readonly Buffer[],
  expected: (key: Buffer) => string,
): boolean {
  let matched = false;
  for (const key of keys) {
    const want = expected(key);
    for (const signature of presented) {
      // No early return: the time taken does not say which secret or signature matched.
      if (constantTimeEquals(signature, want)) matched = true;
    }
  }
  return matched;
}

/** Null when the timestamp is within the tolerance, else the reason. */
function timestampProblem(
  written: string,
  header: string,
  clock: Clock,
  toleranceMs: number,
): string | null {
  if (!SECONDS.test(written)) return `Invalid ${header}: not whole seconds since the epoch`;
  const offset = clock.now().getTime() - Number(written) * 1000;
  if (offset > toleranceMs)
    return `Request timestamp too old: outside the ${toleranceMs} ms tolerance`;
  if (-offset > toleranceMs)
    return `Request timestamp too new: outside the ${toleranceMs} ms tolerance`;
  return null;
}

/** The HMAC key of a Standard Webhooks secret: the base64 after the optional `whsec_`. */
function webhookKey(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret,
    'base64',
  );
}

export function createSenderValidator(config: SenderAuthConfig, clock: Clock): AuthValidator {
  const secrets = config.secrets.map((secret) => secret.reveal());
  switch (config.type) {
    case 'standard-webhooks':
      return standardWebhooks(secrets.map(webhookKey), config.timestampToleranceMs, clock);
    case 'stripe':
      return stripe(
        secrets.map((secret) => Buffer.from(secret, 'utf8')),
        config.timestampToleranceMs,
        clock,
      );
    case 'github':
      return github(secrets.map((secret) => Buffer.from(secret, 'utf8')));
    case 'shopify':
      return shopify(secrets.map((secret) => Buffer.from(secret, 'utf8')));
  }
}

function required(headers: HeaderLookup, names: readonly string[]): string[] | AuthResult {
  const values: string[] = [];
  for (const name of names) {
    const value = headers(name);
    if (value === undefined) return fail(`Missing ${name} header`);
    values.push(value);
  }
  return values;
}

function standardWebhooks(
  keys: readonly Buffer[],
  toleranceMs: number,
  clock: Clock,
): AuthValidator {
  return {
    validate(headers, rawBody) {
      const values = required(headers, ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      if (!Array.isArray(values)) return values;
      const [id, timestamp, header] = values as [string, string, string];
      const late = timestampProblem(timestamp, 'webhook-timestamp', clock, toleranceMs);
      if (late !== null) return fail(late);
      // `v1,<base64>` separated by spaces; other versions (v1a, an asymmetric key) are not ours.
      const presented = header
        .split(' ')
        .filter((part) => part.startsWith('v1,'))
        .map((part) => part.slice('v1,'.length));
      if (presented.length === 0) return fail('No v1 signature in the webhook-signature header');
      const prefix = `${id}.${timestamp}.`;
      return anyMatches(presented, keys, (key) => hmac(key, prefix, rawBody, 'base64'))
        ? OK
        : fail('Invalid signature: no webhook-signature matches the body with a configured secret');
    },
  };
}

function stripe(keys: readonly Buffer[], toleranceMs: number, clock: Clock): AuthValidator {
  return {
    validate(headers, rawBody) {
      const header = headers('Stripe-Signature');
      if (header === undefined) return fail('Missing Stripe-Signature header');
      let timestamp: string | null = null;
      const presented: string[] = [];
      for (const part of header.split(',')) {
        const equals = part.indexOf('=');
        if (equals < 0) continue;
        const name = part.slice(0, equals).trim();
        const value = part.slice(equals + 1).trim();
        if (name === 't') timestamp = value;
        else if (name === 'v1') presented.push(value);
      }
      if (timestamp === null) return fail('No timestamp (t=) in the Stripe-Signature header');
      if (presented.length === 0) return fail('No v1 signature in the Stripe-Signature header');
      const late = timestampProblem(timestamp, 'Stripe-Signature timestamp', clock, toleranceMs);
      if (late !== null) return fail(late);
      const prefix = `${timestamp}.`;
      return anyMatches(presented, keys, (key) => hmac(key, prefix, rawBody, 'hex'))
        ? OK
        : fail('Invalid signature: no v1 signature matches the body with a configured secret');
    },
  };
}

function github(keys: readonly Buffer[]): AuthValidator {
  return {
    validate(headers, rawBody) {
      const header = headers('X-Hub-Signature-256');
      if (header === undefined) return fail('Missing X-Hub-Signature-256 header');
      return anyMatches([header], keys, (key) => `sha256=${hmac(key, null, rawBody, 'hex')}`)
        ? OK
        : fail(
            'Invalid signature: X-Hub-Signature-256 does not match the body with a configured secret',
          );
    },
  };
}

function shopify(keys: readonly Buffer[]): AuthValidator {
  return {
    validate(headers, rawBody) {
      const header = headers('X-Shopify-Hmac-Sha256');
      if (header === undefined) return fail('Missing X-Shopify-Hmac-Sha256 header');
      return anyMatches([header.trim()], keys, (key) => hmac(key, null, rawBody, 'base64'))
        ? OK
        : fail(
            'Invalid signature: X-Shopify-Hmac-Sha256 does not match the body with a configured secret',
          );
    },
  };
}
