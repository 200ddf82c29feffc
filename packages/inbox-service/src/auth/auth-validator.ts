/**
 * Inbound authentication (spec §16.1) for HTTP sources and, through the package exports, the
 * admin routes. Each 401 reason names the check that failed, never a credential, and every
 * credential comparison runs in constant time.
 */
import {
  QueueBoxError,
  systemClock,
  type Clock,
  type InboundAuthConfig,
  type SourceAuthConfig,
} from '@queuebox/core';
import { constantTimeEquals } from './constant-time.js';
import { hmacSignature } from './hmac-signature.js';
import { createSenderValidator } from './sender-signatures.js';

/** Reads one request header by name, in any letter case; `undefined` when it is absent. */
export type HeaderLookup = (name: string) => string | undefined;

export type AuthResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export interface AuthValidator {
  /** @param rawBody the exact bytes read under the body cap; the HMAC is computed over them. */
  validate(headers: HeaderLookup, rawBody: Uint8Array): AuthResult;
}

const OK: AuthResult = { ok: true };
const fail = (reason: string): AuthResult => ({ ok: false, reason });

/** A Unix-milliseconds timestamp as Kotlin's `toLongOrNull` reads it: optional sign, digits only. */
const TIMESTAMP = /^[+-]?\d+$/;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/**
 * @param keyPath the configuration key of the block (`sources.stripe.auth`, `admin.auth`), named
 *   by the one configuration error this can throw.
 */
export function createAuthValidator(
  config: SourceAuthConfig,
  clock: Clock = systemClock,
  keyPath = 'auth',
): AuthValidator {
  switch (config.type) {
    case 'bearer':
      return bearerValidator(config.token.reveal());
    case 'api-key':
      return apiKeyValidator(config.headerName, config.key.reveal());
    case 'hmac':
      return hmacValidator(config, clock, keyPath);
    case 'standard-webhooks':
    case 'stripe':
    case 'github':
    case 'shopify':
      return createSenderValidator(config, clock);
  }
}

function bearerValidator(token: string): AuthValidator {
  return {
    validate(headers) {
      const header = headers('Authorization');
      if (header === undefined) return fail('Missing Authorization header');
      const space = header.indexOf(' ');
      if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') {
        return fail('Invalid Authorization scheme');
      }
      const presented = header.slice(space + 1).trim();
      return constantTimeEquals(presented, token) ? OK : fail('Invalid bearer token');
    },
  };
}

function apiKeyValidator(headerName: string, key: string): AuthValidator {
  const missing = `Missing ${headerName} header`;
  return {
    validate(headers) {
      const presented = headers(headerName);
      if (presented === undefined) return fail(missing);
      return constantTimeEquals(presented, key) ? OK : fail('Invalid API key');
    },
  };
}

type HmacConfig = Extract<InboundAuthConfig, { type: 'hmac' }>;

function hmacValidator(config: HmacConfig, clock: Clock, keyPath: string): AuthValidator {
  // The configuration refuses this too; signing "<nothing>." + body would reject every sender.
  if (config.signaturePayloadFormat === 'TIMESTAMP_DOT_BODY' && config.timestampHeader === null) {
    throw new QueueBoxError(
      'config_invalid',
      `${keyPath}.signaturePayloadFormat: TIMESTAMP_DOT_BODY needs ${keyPath}.timestampHeader.`,
    );
  }
  const secret = config.secret.reveal();
  const missing = `Missing ${config.headerName} header`;
  const { timestampHeader } = config;
  return {
    validate(headers, rawBody) {
      const signature = headers(config.headerName);
      if (signature === undefined) return fail(missing);
      let timestamp: string | null = null;
      if (timestampHeader !== null) {
        const value = headers(timestampHeader);
        if (value === undefined) return fail('Missing timestamp header');
        const millis = parseTimestamp(value);
        if (millis === null) return fail('Invalid timestamp format');
        if (Math.abs(clock.now().getTime() - millis) > config.timestampToleranceMs) {
          return fail('Request timestamp expired');
        }
        timestamp = value;
      }
      const signed = config.signaturePayloadFormat === 'TIMESTAMP_DOT_BODY' ? timestamp : null;
      const expected =
        config.signaturePrefix + hmacSignature(config.algorithm, secret, rawBody, signed);
      return constantTimeEquals(signature, expected) ? OK : fail('Invalid signature');
    },
  };
}

/** Unix milliseconds, or null when the text is not a 64-bit integer. */
function parseTimestamp(text: string): number | null {
  if (!TIMESTAMP.test(text)) return null;
  const value = BigInt(text);
  if (value < LONG_MIN || value > LONG_MAX) return null;
  // Beyond 2^53 the number rounds, but such a time is expired by centuries either way.
  return Number(value);
}
