/**
 * Blocks that several sections share: the JSONata transform (§5.4), inbound auth for sources
 * and admin routes (§16.1) and outbound auth for HTTP destinations (§6.1).
 */
import { optKinded, optSection } from './schema-kit.js';
import { int, oneOf, optOneOf, optStr, secret, str, strMap } from './schema-scalars.js';

export const transformBlock = optSection({
  expression: str(),
  timeoutMs: int({ def: 100, min: 1, ms: true }),
  maxDepth: int({ def: 100, min: 1 }),
  onError: oneOf(['Fail', 'Skip', 'Dead'], 'Fail'),
});

/** `BODY|TIMESTAMP_DOT_BODY`, and since 0.4.1 also `body|timestamp-dot-body`. */
export const SIGNATURE_PAYLOAD_FORMATS = [
  'BODY',
  'TIMESTAMP_DOT_BODY',
  'body',
  'timestamp-dot-body',
] as const;

export const inboundAuthBlock = optKinded({
  bearer: { token: secret() },
  'api-key': { key: secret(), headerName: str({ def: 'X-API-Key' }) },
  hmac: {
    secret: secret(),
    headerName: str({ def: 'X-Signature' }),
    algorithm: oneOf(['HmacSHA256', 'HmacSHA512'], 'HmacSHA256'),
    signaturePrefix: str({ def: 'sha256=' }),
    timestampHeader: optStr(),
    timestampTolerance: int({ def: 300_000, min: 1, ms: true }),
    signaturePayloadFormat: optOneOf(SIGNATURE_PAYLOAD_FORMATS),
  },
});

export const destinationAuthBlock = optKinded({
  oauth2: {
    clientId: str(),
    clientSecret: secret(),
    tokenUrl: str(),
    scope: optStr(),
    extraParams: strMap(),
  },
  basic: { username: str(), password: secret() },
  header: { headerName: str({ def: 'Authorization' }), headerValue: secret() },
});
