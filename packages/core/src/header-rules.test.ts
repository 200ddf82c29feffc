import { describe, expect, it } from 'vitest';
import { framingHeadersOf, isFramingHeader, isHeaderToken } from './header-rules.js';

describe('framing headers', () => {
  it.each([
    'host',
    'content-length',
    'transfer-encoding',
    'connection',
    'keep-alive',
    'te',
    'trailer',
    'upgrade',
    'expect',
    'proxy-connection',
    'proxy-authorization',
    'proxy-authenticate',
  ])('%s is a framing header', (name) => {
    expect(isFramingHeader(name)).toBe(true);
  });

  it.each(['content-type', 'authorization', 'x-idempotency-key', 'x-proxy', 'tee', 'hostname'])(
    '%s is not',
    (name) => {
      expect(isFramingHeader(name)).toBe(false);
    },
  );

  it('adds the names a Connection header nominates, in any letter case', () => {
    const isFraming = framingHeadersOf({ CONNECTION: 'keep-alive, X-Hop ,,x-other', 'X-Hop': '1' });
    expect(isFraming('x-hop')).toBe(true);
    expect(isFraming('x-other')).toBe(true);
    expect(isFraming('transfer-encoding')).toBe(true);
    expect(isFraming('x-kept')).toBe(false);
  });

  it('is the fixed set when no Connection header is present', () => {
    expect(framingHeadersOf({ 'X-Hop': '1' })).toBe(isFramingHeader);
  });
});

describe('header tokens', () => {
  it.each(['X-Api-Key', "a!#$%&'*+-.^_`|~9"])('%s is a token', (name) => {
    expect(isHeaderToken(name)).toBe(true);
  });

  it.each(['', 'bad name', 'x:y', 'x\r\ny', 'ключ', 'a"b', 'a(b)', 'a\u0000'])(
    '%j is not',
    (name) => {
      expect(isHeaderToken(name)).toBe(false);
    },
  );
});
