/**
 * `http.blockPrivateAddresses` (spec §6.1, §16.2): at start, the hosts of every HTTP
 * destination's `baseUrl` and OAuth2 `tokenUrl` are resolved, and an address in a private range
 * stops the start, so a configuration cannot point QueueBox at the metadata service or the
 * database next to it. The ranges are those of Java's InetAddress checks the reference used
 * (loopback, link-local, site-local, any-local) plus IPv6 unique-local fc00::/7. An unresolvable
 * host passes: it cannot be reached either. DNS is not re-checked per request; the docs
 * recommend an egress policy for that.
 */
import { lookup } from 'node:dns/promises';
import { BlockList } from 'node:net';
import { QueueBoxError, sanitize, type AppConfig } from '@queuebox/core';

export type PrivateRange = 'loopback' | 'link-local' | 'site-local' | 'any-local' | 'unique-local';

const RANGES: readonly (readonly [PrivateRange, BlockList])[] = [
  [
    'loopback',
    blockList([
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ]),
  ],
  [
    'link-local',
    blockList([
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ]),
  ],
  [
    'site-local',
    blockList([
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      // Java's isSiteLocalAddress also covers the deprecated IPv6 site-local prefix.
      ['fec0::', 10, 'ipv6'],
    ]),
  ],
  [
    'any-local',
    blockList([
      ['0.0.0.0', 32, 'ipv4'],
      ['::', 128, 'ipv6'],
    ]),
  ],
  ['unique-local', blockList([['fc00::', 7, 'ipv6']])],
];

function blockList(subnets: readonly (readonly [string, number, 'ipv4' | 'ipv6'])[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of subnets) list.addSubnet(network, prefix, family);
  return list;
}

/**
 * The private range an IP address lies in, or null. IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`) count as their IPv4 address, as they do in Java.
 */
export function privateRangeOf(address: string): PrivateRange | null {
  const family = address.includes(':') ? 'ipv6' : 'ipv4';
  for (const [range, list] of RANGES) {
    if (list.check(address, family)) return range;
  }
  return null;
}

export type HostLookup = (host: string) => Promise<readonly string[]>;

const dnsLookup: HostLookup = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** Resolves the hosts and throws one `config_invalid` error naming every refused destination. */
export async function checkPrivateAddresses(
  config: Pick<AppConfig, 'http' | 'destinations'>,
  options: { readonly lookup?: HostLookup } = {},
): Promise<void> {
  if (!config.http.blockPrivateAddresses) return;
  const resolve = options.lookup ?? dnsLookup;
  const checks: Promise<string | null>[] = [];
  for (const [name, destination] of Object.entries(config.destinations)) {
    if (destination.type !== 'http') continue;
    checks.push(checkUrl(resolve, name, 'baseUrl', destination.baseUrl));
    if (destination.auth?.type === 'oauth2') {
      checks.push(checkUrl(resolve, name, 'auth.tokenUrl', destination.auth.tokenUrl));
    }
  }
  const problems = (await Promise.all(checks)).filter((p): p is string => p !== null);
  if (problems.length === 0) return;
  throw new QueueBoxError(
    'config_invalid',
    problems.length === 1
      ? (problems[0] ?? '')
      : [
          `${problems.length} HTTP destinations point at private addresses:`,
          ...problems.map((p) => `  - ${p}`),
        ].join('\n'),
  );
}

async function checkUrl(
  resolve: HostLookup,
  name: string,
  key: string,
  url: string,
): Promise<string | null> {
  let host: string;
  try {
    // `[::1]` → `::1`: lookup wants the bare address.
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return null; // The configuration validator reports malformed URLs.
  }
  let addresses: readonly string[];
  try {
    addresses = await resolve(host);
  } catch {
    return null; // Unresolvable: nothing to connect to, so nothing to block.
  }
  for (const address of addresses) {
    const range = privateRangeOf(address);
    if (range !== null) {
      return sanitize(
        `destinations.${name}.${key}: the host '${host}' of destination '${name}' resolves to ` +
          `${address}, a ${range} address, and 'http.blockPrivateAddresses' is true`,
      );
    }
  }
  return null;
}
