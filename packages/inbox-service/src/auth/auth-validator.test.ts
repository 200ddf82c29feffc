import { createHmac } from 'node:crypto';
import { Secret, type Clock } from '@queuebox/core';
import { hmacAuth } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { createAuthValidator, type HeaderLookup } from './auth-validator.js';

const NOW = 1_700_000_000_000;
const clock: Clock = { now: () => new Date(NOW) };
const utf8 = (text: string) => new TextEncoder().encode(text);

/** Case-insensitive lookup over a plain record, as the routes provide it. */
function headers(values: Record<string, string>): HeaderLookup {
  const lower = new Map(Object.entries(values).map(([name, value]) => [name.toLowerCase(), value]));
  return (name) => lower.get(name.toLowerCase());
}

describe('bearer', () => {
  const validator = createAuthValidator({ type: 'bearer', token: new Secret('s3cret-token') });
  const check = (value?: string) =>
    validator.validate(headers(value === undefined ? {} : { Authorization: value }), utf8('{}'));

  it('accepts the token with the scheme in any case and blanks around the token', () => {
    expect(check('Bearer s3cret-token')).toEqual({ ok: true });
    expect(check('bearer s3cret-token')).toEqual({ ok: true });
    expect(check('BEARER   s3cret-token  ')).toEqual({ ok: true });
  });

  it('names each failed check', () => {
    expect(check()).toEqual({ ok: false, reason: 'Missing Authorization header' });
    expect(check('s3cret-token')).toEqual({ ok: false, reason: 'Invalid Authorization scheme' });
    expect(check('Basic s3cret-token')).toEqual({
      ok: false,
      reason: 'Invalid Authorization scheme',
    });
    expect(check('Bearer wrong')).toEqual({ ok: false, reason: 'Invalid bearer token' });
    expect(check('Bearer s3cret-token-longer')).toEqual({
      ok: false,
      reason: 'Invalid bearer token',
    });
    expect(check('Bearer ')).toEqual({ ok: false, reason: 'Invalid bearer token' });
  });
});

describe('api-key', () => {
  const validator = createAuthValidator({
    type: 'api-key',
    key: new Secret('k-123'),
    headerName: 'X-API-Key',
  });

  it('accepts the key in the configured header, in any header-name case', () => {
    expect(validator.validate(headers({ 'x-api-key': 'k-123' }), utf8(''))).toEqual({ ok: true });
  });

  it('names the configured header when it is missing', () => {
    expect(validator.validate(headers({}), utf8(''))).toEqual({
      ok: false,
      reason: 'Missing X-API-Key header',
    });
    const custom = createAuthValidator({
      type: 'api-key',
      key: new Secret('k'),
      headerName: 'X-Token',
    });
    expect(custom.validate(headers({}), utf8(''))).toEqual({
      ok: false,
      reason: 'Missing X-Token header',
    });
  });

  it('refuses another key, also one that only differs in case or length', () => {
    for (const value of ['k-124', 'K-123', 'k-1234', '']) {
      expect(validator.validate(headers({ 'X-API-Key': value }), utf8(''))).toEqual({
        ok: false,
        reason: 'Invalid API key',
      });
    }
  });
});

describe('hmac', () => {
  it('verifies a GitHub X-Hub-Signature-256 over the body (GitHub docs vector, pinned with openssl)', () => {
    // printf 'Hello, World!' | openssl dgst -sha256 -hmac "It's a Secret to Everybody"
    const literal = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    const body = utf8('Hello, World!');
    const independent = `sha256=${createHmac('sha256', "It's a Secret to Everybody").update(body).digest('hex')}`;
    expect(independent).toBe(literal);
    const validator = createAuthValidator(
      hmacAuth({
        secret: new Secret("It's a Secret to Everybody"),
        headerName: 'X-Hub-Signature-256',
      }),
    );
    expect(validator.validate(headers({ 'X-Hub-Signature-256': literal }), body)).toEqual({
      ok: true,
    });
  });

  it('verifies a computed signature over arbitrary bytes', () => {
    const body = new Uint8Array([0x7b, 0x22, 0xff, 0x00, 0x22, 0x7d]);
    const signature = `sha256=${createHmac('sha256', 'whsec_test').update(body).digest('hex')}`;
    expect(
      createAuthValidator(hmacAuth()).validate(headers({ 'X-Signature': signature }), body),
    ).toEqual({ ok: true });
  });

  it('refuses a tampered body, a tampered signature and an upper-case hex', () => {
    const body = utf8('{"id":"evt_1"}');
    const signature = `sha256=${createHmac('sha256', 'whsec_test').update(body).digest('hex')}`;
    const validator = createAuthValidator(hmacAuth());
    const invalid = { ok: false, reason: 'Invalid signature' };
    expect(
      validator.validate(headers({ 'X-Signature': signature }), utf8('{"id":"evt_2"}')),
    ).toEqual(invalid);
    expect(
      validator.validate(headers({ 'X-Signature': `${signature.slice(0, -1)}0` }), body),
    ).toEqual(invalid);
    expect(validator.validate(headers({ 'X-Signature': signature.toUpperCase() }), body)).toEqual(
      invalid,
    );
    // The prefix is part of the compared value.
    expect(
      validator.validate(headers({ 'X-Signature': signature.slice('sha256='.length) }), body),
    ).toEqual(invalid);
  });

  it('compares without a prefix when the prefix is empty', () => {
    const body = utf8('{}');
    const hex = createHmac('sha256', 'whsec_test').update(body).digest('hex');
    const validator = createAuthValidator(hmacAuth({ signaturePrefix: '' }));
    expect(validator.validate(headers({ 'X-Signature': hex }), body)).toEqual({ ok: true });
  });

  it('verifies HmacSHA512 (vector pinned with openssl)', () => {
    // printf '{"id":"evt_1"}' | openssl dgst -sha512 -hmac "whsec_test"
    const hex =
      '5a43c7ba64fe21bb51f0ceaefd5379537f8a4d9c291b3f3902b8ee83754f4fa0f714fe5706f602b511036779d10c0f47d2475bb871fff9767cfa64ae19cbf54b';
    const validator = createAuthValidator(
      hmacAuth({ algorithm: 'HmacSHA512', signaturePrefix: 'sha512=' }),
    );
    expect(
      validator.validate(headers({ 'X-Signature': `sha512=${hex}` }), utf8('{"id":"evt_1"}')),
    ).toEqual({
      ok: true,
    });
    // A SHA-256 signature of the same body does not pass a SHA-512 source.
    const sha256 = createHmac('sha256', 'whsec_test').update('{"id":"evt_1"}').digest('hex');
    expect(
      validator.validate(headers({ 'X-Signature': `sha512=${sha256}` }), utf8('{"id":"evt_1"}')),
    ).toEqual({
      ok: false,
      reason: 'Invalid signature',
    });
  });

  it('names the configured signature header when it is missing', () => {
    expect(createAuthValidator(hmacAuth()).validate(headers({}), utf8('{}'))).toEqual({
      ok: false,
      reason: 'Missing X-Signature header',
    });
  });

  describe('with a timestamp header (TIMESTAMP_DOT_BODY)', () => {
    const config = hmacAuth({
      timestampHeader: 'X-Timestamp',
      signaturePayloadFormat: 'TIMESTAMP_DOT_BODY',
      timestampToleranceMs: 300_000,
    });
    const validator = createAuthValidator(config, clock);
    const body = utf8('{"id":"evt_1"}');
    const sign = (ts: string) =>
      `sha256=${createHmac('sha256', 'whsec_test').update(`${ts}.`).update(body).digest('hex')}`;

    it('verifies "<ts>." + body (vector pinned with openssl)', () => {
      // printf '1700000000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac "whsec_test"
      const literal = 'sha256=f510dfdb0b01915750c36f3e15401a7895306243fa607a5cba4496ce6c3a0ea3';
      expect(sign(String(NOW))).toBe(literal);
      expect(
        validator.validate(headers({ 'X-Signature': literal, 'X-Timestamp': String(NOW) }), body),
      ).toEqual({
        ok: true,
      });
    });

    it('accepts a timestamp at the edge of the tolerance, in the past and in the future', () => {
      for (const ts of [String(NOW - 300_000), String(NOW + 300_000)]) {
        expect(
          validator.validate(headers({ 'X-Signature': sign(ts), 'X-Timestamp': ts }), body),
        ).toEqual({ ok: true });
      }
    });

    it('refuses an expired or far-future timestamp even with a valid signature', () => {
      for (const ts of [
        String(NOW - 300_001),
        String(NOW + 300_001),
        String(Math.floor(NOW / 1000)),
      ]) {
        expect(
          validator.validate(headers({ 'X-Signature': sign(ts), 'X-Timestamp': ts }), body),
        ).toEqual({
          ok: false,
          reason: 'Request timestamp expired',
        });
      }
    });

    it('refuses a signature over the body alone or over another timestamp', () => {
      const bodyOnly = `sha256=${createHmac('sha256', 'whsec_test').update(body).digest('hex')}`;
      const ts = String(NOW);
      expect(
        validator.validate(headers({ 'X-Signature': bodyOnly, 'X-Timestamp': ts }), body),
      ).toEqual({
        ok: false,
        reason: 'Invalid signature',
      });
      expect(
        validator.validate(
          headers({ 'X-Signature': sign(String(NOW - 1)), 'X-Timestamp': ts }),
          body,
        ),
      ).toEqual({
        ok: false,
        reason: 'Invalid signature',
      });
    });

    it('names a missing timestamp header and an unparsable timestamp', () => {
      expect(validator.validate(headers({ 'X-Signature': sign(String(NOW)) }), body)).toEqual({
        ok: false,
        reason: 'Missing timestamp header',
      });
      for (const ts of [
        '2023-11-14T22:13:20Z',
        '1700000000.5',
        'abc',
        '',
        ' 1700000000000',
        '99999999999999999999',
      ]) {
        expect(
          validator.validate(headers({ 'X-Signature': sign(ts), 'X-Timestamp': ts }), body),
          ts,
        ).toEqual({
          ok: false,
          reason: 'Invalid timestamp format',
        });
      }
    });

    it('checks the signature header before the timestamp', () => {
      expect(validator.validate(headers({ 'X-Timestamp': 'abc' }), body)).toEqual({
        ok: false,
        reason: 'Missing X-Signature header',
      });
    });
  });

  it('checks the timestamp but signs the body alone with a timestamp header and BODY', () => {
    const validator = createAuthValidator(
      hmacAuth({ timestampHeader: 'X-Timestamp', signaturePayloadFormat: 'BODY' }),
      clock,
    );
    const body = utf8('{}');
    const signature = `sha256=${createHmac('sha256', 'whsec_test').update(body).digest('hex')}`;
    expect(
      validator.validate(headers({ 'X-Signature': signature, 'X-Timestamp': String(NOW) }), body),
    ).toEqual({
      ok: true,
    });
    expect(
      validator.validate(
        headers({ 'X-Signature': signature, 'X-Timestamp': String(NOW - 600_000) }),
        body,
      ),
    ).toEqual({
      ok: false,
      reason: 'Request timestamp expired',
    });
  });
});

describe('hmac configuration', () => {
  it('refuses TIMESTAMP_DOT_BODY without a timestamp header, naming the key', () => {
    expect(() =>
      createAuthValidator(hmacAuth({ signaturePayloadFormat: 'TIMESTAMP_DOT_BODY' })),
    ).toThrow('auth.signaturePayloadFormat: TIMESTAMP_DOT_BODY needs auth.timestampHeader.');
    expect(() =>
      createAuthValidator(
        hmacAuth({ signaturePayloadFormat: 'TIMESTAMP_DOT_BODY' }),
        clock,
        'sources.gh.auth',
      ),
    ).toThrow(
      'sources.gh.auth.signaturePayloadFormat: TIMESTAMP_DOT_BODY needs sources.gh.auth.timestampHeader.',
    );
  });
});

describe('reasons never carry a credential', () => {
  it('holds for every failure of every kind', () => {
    const secrets = ['s3cret-token', 'k-123', 'whsec_test', 'wrong'];
    const results = [
      createAuthValidator({ type: 'bearer', token: new Secret('s3cret-token') }).validate(
        headers({ Authorization: 'Bearer wrong' }),
        utf8(''),
      ),
      createAuthValidator({
        type: 'api-key',
        key: new Secret('k-123'),
        headerName: 'X-API-Key',
      }).validate(headers({ 'X-API-Key': 'wrong' }), utf8('')),
      createAuthValidator(hmacAuth()).validate(headers({ 'X-Signature': 'wrong' }), utf8('')),
    ];
    for (const result of results) {
      expect(result.ok).toBe(false);
      if (!result.ok) for (const secret of secrets) expect(result.reason).not.toContain(secret);
    }
  });
});
