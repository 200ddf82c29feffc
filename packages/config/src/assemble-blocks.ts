/** Blocks that sources, destinations, routes and the admin routes share. */
import type { InboundAuthConfig, TransformConfig } from '@queuebox/core';
import type { RawInboundAuth, RawTransform } from './schema/config.js';

export function transform(raw: RawTransform | null): TransformConfig | null {
  return raw === null ? null : { ...raw };
}

export function inboundAuth(raw: RawInboundAuth | null | undefined): InboundAuthConfig | null {
  if (raw === null || raw === undefined) return null;
  switch (raw.type) {
    case 'bearer':
      return { type: 'bearer', token: raw.token };
    case 'api-key':
      return { type: 'api-key', key: raw.key, headerName: raw.headerName };
    case 'hmac': {
      const format = raw.signaturePayloadFormat;
      return {
        type: 'hmac',
        secret: raw.secret,
        headerName: raw.headerName,
        algorithm: raw.algorithm,
        signaturePrefix: raw.signaturePrefix,
        timestampHeader: raw.timestampHeader,
        timestampToleranceMs: raw.timestampTolerance,
        signaturePayloadFormat:
          format === null
            ? raw.timestampHeader === null
              ? 'BODY'
              : 'TIMESTAMP_DOT_BODY'
            : format === 'BODY' || format === 'body'
              ? 'BODY'
              : 'TIMESTAMP_DOT_BODY',
      };
    }
  }
}
