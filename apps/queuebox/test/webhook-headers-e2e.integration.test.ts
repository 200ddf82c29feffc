import { request } from 'node:http';
import type { SinkRequest } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { postJson } from './http-calls.js';
import { eventually } from './service.js';
import { sinkService } from './sink-service.js';
import { FAST_RELAY, httpSink, webhookSource } from './yaml-blocks.js';

const { ready, pgUrl } = await e2eServices('app: webhook headers end to end');
const INBOUND = 'Bearer inbound-token';

/** Headers a real client may send that describe its request, never the message. */
const FRAMING = [
  'transfer-encoding',
  'content-length',
  'expect',
  'te',
  'trailer',
  'keep-alive',
  'proxy-connection',
  'x-hop',
  'upgrade',
];

interface Posted {
  readonly status: number;
  readonly body: string;
}

/** A POST the way Node's http client (and many SDKs, curl -T) sends one, piece by piece. */
function rawPost(
  base: string,
  headers: Record<string, string>,
  pieces: readonly string[],
  options: { expectContinue?: boolean; trailers?: Record<string, string> } = {},
): Promise<Posted> {
  const url = new URL('/inbox/hooks', base);
  return new Promise<Posted>((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { Authorization: INBOUND, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    const writeBody = () => {
      for (const piece of pieces) req.write(piece);
      if (options.trailers) req.addTrailers(options.trailers);
      req.end();
    };
    // With Expect: 100-continue the body waits for the server's interim response.
    if (options.expectContinue === true) {
      req.on('continue', writeBody);
      req.flushHeaders();
    } else {
      writeBody();
    }
  });
}

function values(request: SinkRequest, name: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    if (request.rawHeaders[i]?.toLowerCase() === name) found.push(request.rawHeaders[i + 1] ?? '');
  }
  return found;
}

/**
 * Webhooks posted as real clients post them (chunked, Expect: 100-continue, trailers, a
 * non-Latin-1 body key, a forged copy of the destination's credential header) reach the real
 * sink, and so do the ordinary webhooks after them: no row jams the destination or takes one of
 * its connections, each request carries the configured credential and its own framing.
 */
describe.skipIf(!ready)('webhooks with real-client headers to an HTTP sink', () => {
  const h = sinkService(
    pgUrl,
    (sinkUrl) => `
${FAST_RELAY}
outbox:
  pollIntervalMs: 50
  retryBaseDelayMs: 100
  concurrency: 4
destinations:
${httpSink(sinkUrl)}
    timeoutMs: 3000
    headers:
      X-Static: static
    auth:
      type: header
      headerName: X-Api-Key
      headerValue: dest-secret
routes:
  - topicPattern: "**"
    destination: sink
sources:
${webhookSource('hooks')}
    auth:
      type: bearer
      token: inbound-token
`,
  );

  it('delivers every one with the configured credential, its own framing and encoded keys', async () => {
    const expected = new Map<string, { id: string; type: string }>();
    const accept = (posted: Posted, body: { id: string; type: string }) => {
      expect(posted.status).toBe(202);
      expected.set((JSON.parse(posted.body) as { messageId: string }).messageId, body);
    };
    const forged = { 'Content-Type': 'application/json', 'X-Api-Key': 'forged-by-sender' };

    // 1. A chunked body in three pieces, with trailers and hop-by-hop headers.
    const chunked = { id: 'evt-chunked', type: 'order.created' };
    accept(
      await rawPost(
        h.service.base,
        {
          ...forged,
          Connection: 'keep-alive, X-Hop',
          'X-Hop': 'hop',
          'Keep-Alive': 'timeout=5',
          'Proxy-Connection': 'keep-alive',
          TE: 'trailers',
          Trailer: 'X-Checksum',
        },
        ['{"id": "evt-chunked",', '  "type": ', '"order.created"}'],
        { trailers: { 'X-Checksum': 'abc' } },
      ),
      chunked,
    );
    // 2. Expect: 100-continue, and a declared length that the re-serialized body will not have.
    const continued = { id: 'evt-continue', type: 'order.paid' };
    const spaced = '{ "id" : "evt-continue" ,   "type" : "order.paid" }';
    accept(
      await rawPost(
        h.service.base,
        { ...forged, Expect: '100-continue', 'Content-Length': String(Buffer.byteLength(spaced)) },
        [spaced],
        { expectContinue: true },
      ),
      continued,
    );
    // 3. A body idempotency key outside Latin-1, which the relay puts in x-idempotency-key.
    const unicode = { id: '订单-1', type: 'order.shipped' };
    accept(
      await rawPost(h.service.base, forged, [JSON.stringify(unicode)], { trailers: {} }),
      unicode,
    );
    // 4. Then 100 ordinary webhooks.
    for (let n = 0; n < 100; n++) {
      const body = { id: `evt-${n}`, type: 'order.updated' };
      const res = await postJson(`${h.service.base}/inbox/hooks`, body, {
        Authorization: INBOUND,
      });
      accept({ status: res.status, body: await res.text() }, body);
    }

    const delivered = await eventually(() => {
      const seen = h.sink.requests.filter((r) => expected.has(String(r.headers['x-inbox-id'])));
      return seen.length >= expected.size ? seen : undefined;
    }, 20_000);
    expect(delivered).toHaveLength(103);
    expect(new Set(delivered.map((r) => r.headers['x-inbox-id'])).size).toBe(103);
    for (const req of delivered) {
      const body = expected.get(String(req.headers['x-inbox-id']));
      expect(JSON.parse(req.body)).toEqual(body);
      expect(values(req, 'x-api-key')).toEqual(['dest-secret']);
      expect(values(req, 'x-static')).toEqual(['static']);
      expect(values(req, 'host')).toEqual([`127.0.0.1:${h.sink.port}`]);
      expect(values(req, 'content-length')).toEqual([String(Buffer.byteLength(req.body))]);
      for (const name of FRAMING.filter((n) => n !== 'content-length'))
        expect(values(req, name)).toEqual([]);
    }
    const byKey = (id: string) =>
      delivered.find((r) => (JSON.parse(r.body) as { id: string }).id === id)!;
    expect(values(byKey('订单-1'), 'x-idempotency-key')).toEqual(['%E8%AE%A2%E5%8D%95-1']);
    expect(values(byKey('evt-chunked'), 'x-idempotency-key')).toEqual(['evt-chunked']);

    // Stored as received (spec §7.5), but not copied into the outbox rows.
    const [inbox] = await h.db.sql<{ headers: Record<string, string> }[]>`
      SELECT headers FROM inbox WHERE idempotency_key = 'evt-chunked'`;
    expect(inbox?.headers).toMatchObject({ 'Transfer-Encoding': 'chunked', TE: 'trailers' });
    const copied = await h.db.sql<{ key: string }[]>`
      SELECT DISTINCT lower(k) AS key FROM outbox, jsonb_object_keys(headers) AS k
      WHERE lower(k) IN ${h.db.sql(['host', ...FRAMING])}`;
    expect(copied).toEqual([]);
    const rows = await eventually(async () => {
      const counts = await h.db.sql<{ state: string; failed: number; n: number }[]>`
        SELECT state, count(*) FILTER (WHERE last_error IS NOT NULL)::int AS failed,
               count(*)::int AS n
        FROM outbox GROUP BY state`;
      return counts.length === 1 && counts[0]?.state === 'sent' ? counts : undefined;
    });
    expect(rows).toEqual([{ state: 'sent', failed: 0, n: 103 }]);
  });
});
