/**
 * HTTP header rules shared by the relay, the publishers and the configuration check.
 *
 * Framing headers describe one HTTP connection or one request's framing, not the message: a
 * received copy is never forwarded (the relay does not copy it into an outbox row) and a row's
 * copy is never sent (each publisher frames its own request), and a destination's static
 * headers may not name them. Forwarded, they jam a destination: undici refuses
 * `Transfer-Encoding`, `Expect`, `Upgrade` and `Keep-Alive` outright, a stored `Content-Length`
 * no longer matches the body QueueBox sends, and a stored `Host` names QueueBox instead of the
 * destination.
 *
 * The set is RFC 9110 §7.6.1's hop-by-hop fields (`Connection`, `Proxy-Connection`, `Keep-Alive`,
 * `TE`, `Transfer-Encoding`, `Upgrade`, and every field a `Connection` header nominates) plus the
 * fields of the request's own framing and routing (`Host`, `Content-Length`, `Trailer`,
 * `Expect`) and every `Proxy-*` field (a proxy's, never the receiver's).
 */
import type { Headers } from './model.js';

const FRAMING = new Set([
  'connection',
  'content-length',
  'expect',
  'host',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Whether a lower-case header name is a framing or hop-by-hop field (see the file header). */
export function isFramingHeader(lowerCaseName: string): boolean {
  return FRAMING.has(lowerCaseName) || lowerCaseName.startsWith('proxy-');
}

/**
 * The lower-case names a `Connection` header value nominates (RFC 9110 §7.6.1: `Connection:
 * close, X-Hop` makes `X-Hop` hop-by-hop too).
 */
export function connectionOptions(value: string): string[] {
  const options: string[] = [];
  for (const option of value.split(',')) {
    const lower = option.trim().toLowerCase();
    if (lower !== '') options.push(lower);
  }
  return options;
}

/**
 * The framing test for one header set: the fixed names plus the ones its `Connection` header
 * nominates. Without a `Connection` header (the usual case) it is `isFramingHeader` itself.
 */
export function framingHeadersOf(headers: Headers): (lowerCaseName: string) => boolean {
  let nominated: Set<string> | null = null;
  for (const name of Object.keys(headers)) {
    if (name.length !== 10 || name.toLowerCase() !== 'connection') continue;
    const value: unknown = headers[name];
    if (typeof value === 'string')
      for (const option of connectionOptions(value)) (nominated ??= new Set()).add(option);
  }
  if (nominated === null) return isFramingHeader;
  const options = nominated;
  return (lowerCaseName) => isFramingHeader(lowerCaseName) || options.has(lowerCaseName);
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Whether a name can be an HTTP header name: an RFC 9110 token (letters, digits and
 * ``!#$%&'*+-.^_`|~``). No other name can go on the wire.
 */
export function isHeaderToken(name: string): boolean {
  return TOKEN.test(name);
}
