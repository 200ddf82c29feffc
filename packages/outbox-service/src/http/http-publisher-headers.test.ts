import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonPayload, Secret, type Headers } from '@queuebox/core';
import {
  httpDestination,
  outboxMessage,
  RecordingLogger,
  type SinkRequest,
} from '@queuebox/testing';
import { rawValues, send, sinkPerTest, testPublisher } from '../../test/publisher-harness.js';

/**
 * The headers a row carries never decide how the request is framed, never make undici refuse
 * it, and (on a relayed row) never replace the destination's credentials. Real sink, real undici.
 */
const http = sinkPerTest();

/** Every framing or hop-by-hop header a stored webhook (or an application's row) may carry. */
const FRAMING_ROWS: readonly Headers[] = [
  { 'Transfer-Encoding': 'chunked' },
  { 'transfer-encoding': 'gzip, chunked' },
  { 'Content-Length': '5' },
  { 'content-length': '99999' },
  { Connection: 'close, X-Hop', 'X-Hop': 'hop-by-hop' },
  { Connection: 'Upgrade', Upgrade: 'websocket' },
  { Upgrade: 'h2c' },
  { Expect: '100-continue' },
  { Host: 'attacker.example' },
  { TE: 'trailers' },
  { Trailer: 'X-Checksum' },
  { 'Keep-Alive': 'timeout=5, max=100' },
  { 'Proxy-Authorization': 'Basic Zm9vOmJhcg==' },
  { 'Proxy-Connection': 'keep-alive' },
];

const FRAMING_NAMES = [
  'transfer-encoding',
  'expect',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'x-hop',
];

function expectOwnFraming(request: SinkRequest): void {
  expect(request.headers.host).toBe(`127.0.0.1:${http.sink.port}`);
  expect(rawValues(request.rawHeaders, 'host')).toHaveLength(1);
  expect(rawValues(request.rawHeaders, 'content-length')).toEqual([
    String(Buffer.byteLength(request.body)),
  ]);
  for (const name of FRAMING_NAMES) expect(rawValues(request.rawHeaders, name)).toEqual([]);
  for (const value of rawValues(request.rawHeaders, 'connection')) expect(value).toBe('keep-alive');
  expect(request.headers['x-kept']).toBe('yes');
}

describe('HTTP publisher: framing headers of a row', () => {
  it('delivers rows carrying each framing header with its own framing, and loses no connection', async () => {
    const target = http.keep(
      testPublisher(
        { receiver: httpDestination({ baseUrl: http.sink.url, timeoutMs: 2000 }) },
        { connections: 2 },
      ),
    );
    // Three rounds against two sockets: a connection lost per refusal would starve the rest.
    for (let round = 0; round < 3; round++) {
      for (const headers of FRAMING_ROWS) {
        const outcome = await send(
          target,
          outboxMessage({ headers: { ...headers, 'X-Kept': 'yes' } }),
          {
            payload: JsonPayload.fromValue({ round, headers: Object.keys(headers) }),
          },
        );
        expect({ headers, outcome }).toEqual({ headers, outcome: { ok: true } });
      }
    }
    const ordinary = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        send(target, outboxMessage({ headers: { 'X-Kept': 'yes' } }), {
          payload: JsonPayload.fromValue({ n }),
        }),
      ),
    );
    expect(ordinary).toEqual(Array.from({ length: 10 }, () => ({ ok: true })));
    expect(http.sink.requests).toHaveLength(3 * FRAMING_ROWS.length + 10);
    for (const request of http.sink.requests) expectOwnFraming(request);
    // The row's `Connection: close` was not obeyed: the two sockets were kept alive.
    expect(http.sink.connections()).toBeLessThanOrEqual(2);
  });
});

describe('HTTP publisher: header values and names', () => {
  it('sends a value outside Latin-1 or with a control character as percent-encoded UTF-8', async () => {
    const target = http.keep(
      testPublisher({
        receiver: httpDestination({ baseUrl: http.sink.url, timeoutMs: 2000 }),
      }),
    );
    const headers = {
      'x-idempotency-key': '订单-1',
      'X-Mixed': '100% café 🚀',
      'X-Broken': 'a\r\nX-Injected: 1',
      'X-Nul': 'a\u0000b',
      'X-Lone': 'a\ud800b',
      'X-Latin': 'café ü',
    };
    const outcome = await send(
      target,
      outboxMessage({ topic: '订单.created', key: '客户-7', headers }),
    );
    expect(outcome).toEqual({ ok: true });
    const { rawHeaders, headers: seen } = http.sink.requests[0]!;
    expect(rawValues(rawHeaders, 'x-idempotency-key')).toEqual(['%E8%AE%A2%E5%8D%95-1']);
    expect(rawValues(rawHeaders, 'x-mixed')).toEqual(['100%25%20caf%C3%A9%20%F0%9F%9A%80']);
    expect(rawValues(rawHeaders, 'x-broken')).toEqual(['a%0D%0AX-Injected%3A%201']);
    expect(seen).not.toHaveProperty('x-injected');
    expect(rawValues(rawHeaders, 'x-nul')).toEqual(['a%00b']);
    expect(rawValues(rawHeaders, 'x-lone')).toEqual(['a%EF%BF%BDb']);
    expect(rawValues(rawHeaders, 'x-topic')).toEqual(['%E8%AE%A2%E5%8D%95.created']);
    expect(rawValues(rawHeaders, 'x-message-key')).toEqual(['%E5%AE%A2%E6%88%B7-7']);
    // The documented way back.
    expect(decodeURIComponent(seen['x-idempotency-key'] as string)).toBe('订单-1');
    expect(decodeURIComponent(seen['x-mixed'] as string)).toBe('100% café 🚀');
    // Latin-1 text goes as it is, one byte per character (Node reads header bytes as Latin-1).
    expect(rawValues(rawHeaders, 'x-latin')).toEqual(['café ü']);
  });

  it('leaves out a header whose name is not a token, says so, and sends the rest', async () => {
    const logger = new RecordingLogger();
    const target = http.keep(
      testPublisher(
        { receiver: httpDestination({ baseUrl: http.sink.url, timeoutMs: 2000 }) },
        { logger },
      ),
    );
    const message = outboxMessage({
      headers: { 'bad name': 'x', 'X-Split\r\nX-Injected': 'y', '': 'z', 'X-Good': 'ok' },
    });
    expect(await send(target, message)).toEqual({ ok: true });
    const { headers } = http.sink.requests[0]!;
    expect(headers['x-good']).toBe('ok');
    expect(headers).not.toHaveProperty('x-injected');
    expect(headers).not.toHaveProperty('bad name');
    const warnings = logger.messages('warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`Message ${message.id} has header name(s) "bad name", `);
    expect(warnings[0]).toContain('"X-Split\\r\\nX-Injected", ""');
    expect(warnings[0]).not.toContain('\n');
  });

  it('sends a JSON value that is not a string as its JSON text', async () => {
    const target = http.keep(
      testPublisher({
        receiver: httpDestination({ baseUrl: http.sink.url }),
      }),
    );
    const headers = { 'X-Num': 5, 'X-Bool': true, 'X-Null': null, 'X-Obj': { a: 1 } };
    const outcome = await send(target, outboxMessage({ headers: headers as unknown as Headers }));
    expect(outcome).toEqual({ ok: true });
    const seen = http.sink.requests[0]!.headers;
    expect([seen['x-num'], seen['x-bool'], seen['x-null'], seen['x-obj']]).toEqual([
      '5',
      'true',
      'null',
      '{"a":1}',
    ]);
  });
});

describe('HTTP publisher: credentials on a relayed row', () => {
  const forged = {
    'X-API-KEY': 'forged-key',
    authorization: 'Basic Zm9yZ2VkOmZvcmdlZA==',
    'x-static': 'forged-static',
    'X-Tenant': 'sender-tenant',
  };

  it.each([
    {
      kind: 'header auth',
      auth: {
        type: 'header' as const,
        headerName: 'X-Api-Key',
        headerValue: new Secret('dest-key'),
      },
      name: 'x-api-key',
      expected: 'dest-key',
    },
    {
      kind: 'basic auth',
      auth: { type: 'basic' as const, username: 'svc', password: new Secret('pw') },
      name: 'authorization',
      expected: `Basic ${Buffer.from('svc:pw').toString('base64')}`,
    },
  ])(
    'the destination $kind and static headers win over the headers of a row the relay wrote',
    async ({ auth, name, expected }) => {
      const target = http.keep(
        testPublisher({
          receiver: httpDestination({
            baseUrl: http.sink.url,
            headers: { 'X-Static': 'static' },
            auth,
          }),
        }),
      );
      const relayed = outboxMessage({ headers: { ...forged, 'x-inbox-id': 'inbox-1' } });
      expect(await send(target, relayed)).toEqual({ ok: true });
      const { rawHeaders } = http.sink.requests[0]!;
      expect(rawValues(rawHeaders, name)).toEqual([expected]);
      expect(rawValues(rawHeaders, 'x-static')).toEqual(['static']);
      // Headers the destination does not set still travel.
      expect(rawValues(rawHeaders, 'x-tenant')).toEqual(['sender-tenant']);
      expect(rawValues(rawHeaders, 'x-inbox-id')).toEqual(['inbox-1']);

      // An application's own row (no x-inbox-id) keeps the last word, as spec §6 says.
      expect(await send(target, outboxMessage({ headers: forged }))).toEqual({ ok: true });
      const own = http.sink.requests[1]!.rawHeaders;
      expect(rawValues(own, 'x-static')).toEqual(['forged-static']);
      expect(rawValues(own, name)).toEqual([
        name === 'x-api-key' ? 'forged-key' : forged.authorization,
      ]);
    },
  );

  it('recognises a relayed row by x-inbox-id in any letter case', async () => {
    const target = http.keep(
      testPublisher({
        receiver: httpDestination({ baseUrl: http.sink.url, headers: { 'X-Static': 'static' } }),
      }),
    );
    await send(target, outboxMessage({ headers: { 'X-Inbox-Id': 'i-1', 'x-static': 'forged' } }));
    expect(rawValues(http.sink.requests[0]!.rawHeaders, 'x-static')).toEqual(['static']);
  });
});

describe('HTTP publisher: the headers QueueBox owns', () => {
  const forged = {
    'X-Message-Id': 'forged-id',
    'x-topic': 'forged.topic',
    'X-ATTEMPT': '99',
    'x-Message-Key': 'forged-key',
  };

  const rows: { kind: string; extra: Record<string, string> }[] = [
    { kind: 'a relayed row', extra: { 'x-inbox-id': 'inbox-1' } },
    { kind: "an application's own row", extra: {} },
  ];

  it.each(rows)(
    'sends one line of each, with the row values, whatever $kind carries',
    async ({ extra }) => {
      const target = http.keep(
        testPublisher({
          receiver: httpDestination({ baseUrl: http.sink.url, headers: { 'X-Static': 'static' } }),
        }),
      );
      const message = outboxMessage({
        topic: 'orders.paid',
        key: 'order-7',
        attempt: 2,
        headers: { ...forged, ...extra, 'X-Tenant': 't-1' },
      });
      expect(await send(target, message)).toEqual({ ok: true });
      const { rawHeaders } = http.sink.requests[0]!;
      expect(rawValues(rawHeaders, 'x-message-id')).toEqual([message.id]);
      expect(rawValues(rawHeaders, 'x-topic')).toEqual(['orders.paid']);
      expect(rawValues(rawHeaders, 'x-attempt')).toEqual(['2']);
      expect(rawValues(rawHeaders, 'x-message-key')).toEqual(['order-7']);
      expect(rawValues(rawHeaders, 'x-tenant')).toEqual(['t-1']);
    },
  );

  it('sends no row copy of X-Message-Key when the row has no key', async () => {
    const target = http.keep(
      testPublisher({
        receiver: httpDestination({ baseUrl: http.sink.url }),
      }),
    );
    const message = outboxMessage({ key: null, headers: { 'X-Message-Key': 'forged-key' } });
    expect(await send(target, message)).toEqual({ ok: true });
    expect(rawValues(http.sink.requests[0]!.rawHeaders, 'x-message-key')).toEqual([]);
  });
});

describe('HTTP publisher: close', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('ends within its grace while a request is still connecting to a destination that hangs', async () => {
    // Accepts TCP and never answers: the TLS handshake, part of undici's connect, hangs.
    silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const target = testPublisher({
      receiver: httpDestination({ baseUrl: `https://127.0.0.1:${port}`, timeoutMs: 60_000 }),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    expect(await send(target, outboxMessage(), { signal: controller.signal })).toMatchObject({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish cancelled: the claim on the message was lost',
      }) as unknown,
    });
    const started = performance.now();
    const closed = await Promise.race([
      target.close().then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5000)),
    ]);
    expect(closed).toBe('closed');
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
