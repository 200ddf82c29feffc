import { Secret } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { neverStoredHeaders } from './credential-headers.js';

describe('neverStoredHeaders', () => {
  it('always holds the three credential headers, lower-cased', () => {
    expect([...neverStoredHeaders(null)]).toEqual([
      'authorization',
      'proxy-authorization',
      'cookie',
    ]);
    expect([...neverStoredHeaders({ type: 'bearer', token: new Secret('t') })]).toEqual([
      'authorization',
      'proxy-authorization',
      'cookie',
    ]);
  });

  it('adds the header that api-key and hmac auth read', () => {
    expect(
      neverStoredHeaders({ type: 'api-key', key: new Secret('k'), headerName: 'X-API-Key' }).has(
        'x-api-key',
      ),
    ).toBe(true);
    const hmac = neverStoredHeaders({
      type: 'hmac',
      secret: new Secret('s'),
      headerName: 'X-Hub-Signature-256',
      algorithm: 'HmacSHA256',
      signaturePrefix: 'sha256=',
      timestampHeader: 'X-Timestamp',
      timestampToleranceMs: 1,
      signaturePayloadFormat: 'BODY',
    });
    expect(hmac.has('x-hub-signature-256')).toBe(true);
    // The timestamp is not a credential: it stays in the stored headers.
    expect(hmac.has('x-timestamp')).toBe(false);
  });
});
