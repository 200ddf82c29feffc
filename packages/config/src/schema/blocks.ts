/**
 * Blocks that several sections share: the JSONata transform (§5.4), inbound auth for sources
 * and admin routes (§16.1) and outbound auth for HTTP destinations (§6.1).
 */
import { v, optKinded, optSection } from './kit.js';
import { headerName, nonBlank, secretHeaderValue, secretNotBlank } from './checks.js';
import {
  int,
  ms,
  oneOf,
  opt,
  optInt,
  optOneOf,
  optText,
  picklist,
  positiveNumber,
  secret,
  str,
  text,
  textMap,
} from './scalars.js';

const nonBlankSecret = v.pipe(secret, secretNotBlank);

export const transformBlock = optSection({
  expression: nonBlank,
  timeoutMs: ms(100),
  maxDepth: int(100, { min: 1 }),
  onError: oneOf(['Fail', 'Skip', 'Dead'], 'Fail'),
});

const inboundKinds = {
  bearer: { token: nonBlankSecret },
  'api-key': { key: nonBlankSecret, headerName: v.optional(nonBlank, 'X-API-Key') },
  hmac: {
    secret: nonBlankSecret,
    headerName: v.optional(nonBlank, 'X-Signature'),
    algorithm: oneOf(['HmacSHA256', 'HmacSHA512'], 'HmacSHA256'),
    signaturePrefix: str('sha256='),
    timestampHeader: opt(nonBlank),
    timestampTolerance: ms(300_000),
    // `BODY|TIMESTAMP_DOT_BODY`, and since 0.4.1 also `body|timestamp-dot-body`.
    signaturePayloadFormat: optOneOf(['BODY', 'TIMESTAMP_DOT_BODY', 'body', 'timestamp-dot-body']),
  },
};

/** `bearer`, `api-key`, `hmac`: sources and the admin routes. */
export const inboundAuthBlock = optKinded(inboundKinds);

/** One or more secrets; `file:<path>` reads each. */
const secretList = v.pipe(
  v.array(nonBlankSecret, 'must be a list of secrets'),
  v.check((items) => items.length > 0, 'the list must not be empty'),
);

/** `secret`, or `secrets` during a rotation: exactly one of the two (source and signing rules). */
export const secretKeys = { secret: opt(nonBlankSecret), secrets: opt(secretList) };

/**
 * Sources also take the common senders' own schemes; the admin routes do not (nobody signs an
 * admin call the way Stripe signs an event).
 */
export const sourceAuthBlock = optKinded({
  ...inboundKinds,
  'standard-webhooks': { ...secretKeys, timestampTolerance: ms(300_000) },
  stripe: { ...secretKeys, timestampTolerance: ms(300_000) },
  github: secretKeys,
  shopify: secretKeys,
});

/** `destinations.<name>.signing` (HTTP): Standard Webhooks signatures on every request. */
export const signingBlock = optSection({
  scheme: picklist(['standard-webhooks']),
  ...secretKeys,
});

export const destinationAuthBlock = optKinded({
  oauth2: {
    clientId: nonBlank,
    clientSecret: nonBlankSecret,
    // Checked with baseUrl's rules by the destination rules, which know where the credentials go.
    tokenUrl: text,
    scope: optText,
    extraParams: textMap(),
  },
  basic: { username: nonBlank, password: secret },
  header: {
    headerName: v.optional(v.pipe(text, headerName), 'Authorization'),
    headerValue: v.pipe(secret, secretHeaderValue),
  },
});

/**
 * `destinations.<name>.rateLimit` (every type): a token bucket and a cap on publishes in flight,
 * per replica; at least one of `perSecond` and `maxInFlight` (destination rules). `burst`
 * defaults from `perSecond` when the block is assembled.
 */
export const rateLimitBlock = optSection({
  perSecond: opt(positiveNumber),
  burst: optInt({ min: 1 }),
  maxInFlight: optInt({ min: 1 }),
});
