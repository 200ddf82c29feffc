import { describe, expect, it } from 'vitest';
import type { DestinationConfig } from '@queuebox/core';
import { Secret } from '@queuebox/core';
import { httpDestination, kafkaDestination } from '@queuebox/testing';
import { checkPrivateAddresses, privateRangeOf } from './private-address.js';

function config(destinations: Record<string, DestinationConfig>, block = true) {
  return { http: { maxErrorBodyBytes: 2048, blockPrivateAddresses: block }, destinations };
}

describe('privateRangeOf', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['10.1.2.3', 'site-local'],
    ['172.16.0.1', 'site-local'],
    ['172.31.255.255', 'site-local'],
    ['192.168.1.1', 'site-local'],
    ['fec0::1', 'site-local'],
    ['0.0.0.0', 'any-local'],
    ['::', 'any-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
  ])('classifies %s as %s', (address, range) => {
    expect(privateRangeOf(address)).toBe(range);
  });

  it.each([
    '8.8.8.8',
    '172.32.0.1',
    '172.15.255.255',
    '192.169.0.1',
    '2001:db8::1',
    '93.184.216.34',
  ])('lets %s pass', (address) => {
    expect(privateRangeOf(address)).toBeNull();
  });
});

describe('checkPrivateAddresses', () => {
  it('refuses a loopback baseUrl, naming the destination and the host', async () => {
    await expect(
      checkPrivateAddresses(
        config({ local: httpDestination({ baseUrl: 'http://127.0.0.1:8080/x' }) }),
      ),
    ).rejects.toMatchObject({
      code: 'config_invalid',
      message:
        "destinations.local.baseUrl: the host '127.0.0.1' of destination 'local' resolves to 127.0.0.1, a loopback address, and 'http.blockPrivateAddresses' is true",
    });
  });

  it('refuses a site-local OAuth2 tokenUrl', async () => {
    const destination = httpDestination({
      baseUrl: 'http://93.184.216.34',
      auth: {
        type: 'oauth2',
        clientId: 'c',
        clientSecret: new Secret('s'),
        tokenUrl: 'https://10.0.0.5/token',
        scope: null,
        extraParams: {},
      },
    });
    await expect(checkPrivateAddresses(config({ api: destination }))).rejects.toThrow(
      "destinations.api.auth.tokenUrl: the host '10.0.0.5' of destination 'api' resolves to 10.0.0.5, a site-local address",
    );
  });

  it('resolves host names and refuses IPv6 literals in brackets', async () => {
    await expect(
      checkPrivateAddresses(
        config({
          a: httpDestination({ baseUrl: 'http://localhost:9000' }),
          b: httpDestination({ baseUrl: 'http://[::1]:9000' }),
        }),
      ),
    ).rejects.toThrow(
      /^2 HTTP destinations point at private addresses:\n {2}- destinations\.a\.baseUrl: the host 'localhost'.*\n {2}- destinations\.b\.baseUrl: the host '::1'/,
    );
  });

  it('lets an unresolvable host and a public address pass', async () => {
    await expect(
      checkPrivateAddresses(
        config({
          gone: httpDestination({ baseUrl: 'http://no-such-host.invalid' }),
          public: httpDestination({ baseUrl: 'https://93.184.216.34/hook' }),
        }),
      ),
    ).resolves.toBeUndefined();
  });

  it('checks nothing when blockPrivateAddresses is false, and ignores other types', async () => {
    await expect(
      checkPrivateAddresses(
        config({ local: httpDestination({ baseUrl: 'http://127.0.0.1' }) }, false),
      ),
    ).resolves.toBeUndefined();
    await expect(checkPrivateAddresses(config({ k: kafkaDestination() }))).resolves.toBeUndefined();
  });

  it('uses every address a host resolves to', async () => {
    const lookup = (host: string) =>
      Promise.resolve(host === 'mixed.example' ? ['93.184.216.34', '192.168.0.10'] : []);
    await expect(
      checkPrivateAddresses(config({ m: httpDestination({ baseUrl: 'http://mixed.example' }) }), {
        lookup,
      }),
    ).rejects.toThrow('resolves to 192.168.0.10, a site-local address');
  });
});
