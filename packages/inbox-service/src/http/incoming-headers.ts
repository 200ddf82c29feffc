import type { Context } from 'hono';
import { ReceivedHeaders } from '../ingest/received-headers.js';

/**
 * The request's headers with their names as sent and every repeated value. On the Node server
 * (`@hono/node-server`) the raw header list of the incoming message has both; the Fetch
 * `Headers` object lower-cases names and joins repeated values with ", ", so it is only the
 * fallback (in-process `app.request()` tests, other runtimes).
 */
export function receivedHeadersOf(c: Context): ReceivedHeaders {
  const raw = rawHeadersOf(c.env);
  return new ReceivedHeaders(raw ?? c.req.raw.headers.entries());
}

function rawHeadersOf(env: unknown): Iterable<readonly [string, string]> | null {
  if (typeof env !== 'object' || env === null || !('incoming' in env)) return null;
  const incoming = env.incoming;
  if (typeof incoming !== 'object' || incoming === null || !('rawHeaders' in incoming)) return null;
  const raw = incoming.rawHeaders;
  if (
    !Array.isArray(raw) ||
    raw.length % 2 !== 0 ||
    !raw.every((item): item is string => typeof item === 'string')
  )
    return null;
  const list: readonly string[] = raw;
  return (function* pairs() {
    for (let i = 0; i < list.length; i += 2) yield [list[i] ?? '', list[i + 1] ?? ''] as const;
  })();
}
