/**
 * Blocks that several sections share: the JSONata transform (§5.4), inbound auth for sources
 * and admin routes (§16.1) and outbound auth for HTTP destinations (§6.1).
 */
import * as v from 'valibot';
import { headerName, notBlank, secretHeaderValue, secretNotBlank } from './checks.js';
import { kinded, optKinded, optSection } from './kit.js';
import { int, ms, oneOf, opt, optOneOf, optStr, secret, str, strMap, text } from './scalars.js';

export const transformBlock = optSection({
  expression: v.pipe(text, notBlank),
  timeoutMs: ms(100),
  maxDepth: int(100, { min: 1 }),
  onError: oneOf(['Fail', 'Skip', 'Dead'], 'Fail'),
});

/** `BODY|TIMESTAMP_DOT_BODY`, and since 0.4.1 also `body|timestamp-dot-body`. */
export const SIGNATURE_PAYLOAD_FORMATS = [
  'BODY',
  'TIMESTAMP_DOT_BODY',
  'body',
  'timestamp-dot-body',
] as const;

const nonBlank = (def: string) => v.optional(v.pipe(text, notBlank), def);

export const inboundAuthKinds = {
  bearer: { token: v.pipe(secret(), secretNotBlank) },
  'api-key': { key: v.pipe(secret(), secretNotBlank), headerName: nonBlank('X-API-Key') },
  hmac: {
    secret: v.pipe(secret(), secretNotBlank),
    headerName: nonBlank('X-Signature'),
    algorithm: oneOf(['HmacSHA256', 'HmacSHA512'], 'HmacSHA256'),
    signaturePrefix: str('sha256='),
    timestampHeader: opt(v.pipe(text, notBlank)),
    timestampTolerance: ms(300_000),
    signaturePayloadFormat: optOneOf(SIGNATURE_PAYLOAD_FORMATS),
  },
} as const;
export const inboundAuthBlock = optKinded(inboundAuthKinds);
export const inboundAuth = kinded(inboundAuthKinds);

export const destinationAuthBlock = optKinded({
  oauth2: {
    clientId: v.pipe(text, notBlank),
    clientSecret: v.pipe(secret(), secretNotBlank),
    // Checked with baseUrl's rules by the destination rules, which know where the credentials go.
    tokenUrl: text,
    scope: optStr(),
    extraParams: strMap(),
  },
  basic: { username: v.pipe(text, notBlank), password: secret() },
  header: {
    headerName: v.optional(v.pipe(text, headerName), 'Authorization'),
    headerValue: v.pipe(secret(), secretHeaderValue),
  },
});
