import { randomUUID } from 'node:crypto';
import { JsonPayload, type Logger, Secret, silentLogger } from '@queuebox/core';
import {
  createNatsKit,
  freePort,
  requireService,
  startFaultProxy,
  warningLogger,
  serviceUrl,
  suiteScope,
} from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { createNatsPublisher } from '../src/index.js';
import {
  destinations,
  natsDestination,
  outboxMessage,
  publishRequest,
  serverAddress,
  viaProxy,
} from './nats-config.js';
import { privateServerAvailable, startPrivateServer } from './private-server.js';

const nats = await requireService('nats', 'nats: publisher');
const url = serviceUrl(nats);

/**
 * The publisher against the real server: the wire format of spec §6.4, the message id that
 * deduplicates a retry and still lets a replay through, core publishes, many PubAcks in flight,
 * and every way a publish fails (no stream, a lost or refused connection, a subject or header
 * NATS cannot carry) failing only the messages it concerns.
 */
describe.skipIf(!nats.available)('NATS publisher', () => {
  const { kit, closing } = suiteScope(() => createNatsKit(url, 'qb-pub'));

  const publisher = (
    config: Parameters<typeof natsDestination>[1] = {},
    options: { servers?: string; logger?: Logger } = {},
  ) => {
    const created = createNatsPublisher(
      destinations({ ns: natsDestination(options.servers ?? url, config) }),
      { logger: options.logger ?? silentLogger },
    );
    return closing(created);
  };

  /** A stream of its own on `<prefix>.<suffix>.>`; returns it and a subject it takes. */
  const stream = async (suffix: string) => {
    const name = await kit.stream(kit.name(suffix), [kit.subject(`${suffix}.>`)]);
    return { name, subject: kit.subject(`${suffix}.orders`) };
  };

  const proxy = async () => {
    const created = await startFaultProxy({ target: serverAddress(url) });
    return closing(created);
  };

  it('publishes the spec wire format: the stored text, static and row headers, then x-message-id, x-topic, x-attempt, x-message-key', async () => {
    const { name, subject } = await stream('wire');
    const ns = publisher({ headers: { 'X-Static': 'static', 'X-Env': 'prod' } });
    const text = '{"id": 12345678901234567890, "amount": 1.50, "huge": 1e400}';
    const message = outboxMessage({
      topic: 'order.created',
      key: 'order-7',
      attempt: 3,
      payload: JsonPayload.fromText(text),
      headers: { 'X-Correlation-Id': 'corr-1', 'x-env': 'row-wins', 'X-Count': 7 } as never,
    });
    expect(await ns.publish(publishRequest('ns', subject, message))).toEqual({ ok: true });
    const [stored] = await kit.messages(name);
    expect(stored!.text).toBe(text);
    expect(stored!.subject).toBe(subject);
    expect(stored!.headers).toEqual({
      'X-Static': ['static'],
      'x-env': ['row-wins'],
      'X-Correlation-Id': ['corr-1'],
      'X-Count': ['7'],
      'x-message-id': [message.id],
      'x-topic': ['order.created'],
      'x-attempt': ['3'],
      'x-message-key': ['order-7'],
      'Nats-Msg-Id': [message.id],
    });
  });

  it("sends QueueBox's standard headers alone on every row, and drops a relayed row's Nats-* headers", async () => {
    const { name, subject } = await stream('precedence');
    const ns = publisher({ headers: { 'X-Api-Key': 'configured' } });
    const own = outboxMessage({
      headers: { 'x-topic': 'mine', 'Nats-Expected-Stream': name, 'nats-msg-id': 'forged' },
    });
    const relayed = outboxMessage({
      topic: 'stripe',
      attempt: 1,
      headers: {
        'x-inbox-id': randomUUID(),
        'x-source': 'stripe',
        'x-api-key': 'forged',
        'X-Topic': 'forged',
        'x-message-id': 'forged',
        'Nats-Rollup': 'all',
        'Nats-Msg-Id': 'from-the-source-stream',
      },
    });
    expect(await ns.publish(publishRequest('ns', subject, own))).toEqual({ ok: true });
    expect(await ns.publish(publishRequest('ns', subject, relayed))).toEqual({ ok: true });
    const [first, second] = await kit.messages(name);
    expect(first!.headers['x-topic']).toEqual([own.topic]);
    expect(first!.headers['Nats-Expected-Stream']).toEqual([name]);
    expect(first!.headers['Nats-Msg-Id']).toEqual([own.id]);
    expect(first!.headers['nats-msg-id']).toBeUndefined();
    expect(second!.headers).toEqual({
      'x-inbox-id': [relayed.headers['x-inbox-id']],
      'x-source': ['stripe'],
      'X-Api-Key': ['configured'],
      'x-message-id': [relayed.id],
      'x-topic': ['stripe'],
      'x-attempt': ['1'],
      'Nats-Msg-Id': [relayed.id],
    });
  });

  it('stores a retried publish once (the stream deduplicates the row id) and delivers a replayed row again', async () => {
    const { name, subject } = await stream('replay');
    const ns = publisher();
    const row = outboxMessage({ scheduledAt: new Date(Date.now() - 5_000) });
    expect(await ns.publish(publishRequest('ns', subject, row))).toEqual({ ok: true });
    // The PubAck of attempt 0 was lost: attempt 1 is the same message, stored once.
    const retry = { ...row, attempt: 1, scheduledAt: new Date() };
    expect(await ns.publish(publishRequest('ns', subject, retry))).toEqual({ ok: true });
    expect(await kit.messages(name)).toHaveLength(1);
    // An admin replay: attempt 0 again, scheduled now, inside the duplicate window.
    const replay = { ...row, attempt: 0, scheduledAt: new Date() };
    expect(await ns.publish(publishRequest('ns', subject, replay))).toEqual({ ok: true });
    const stored = await kit.messages(name);
    expect(stored).toHaveLength(2);
    expect(stored.map((m) => m.headers['x-message-id'])).toEqual([[row.id], [row.id]]);
    expect(stored[1]!.headers['Nats-Msg-Id']).toEqual([
      `${row.id}:${replay.scheduledAt.getTime()}`,
    ]);
    // A retry of the replay whose PubAck was lost: deduplicated like the first.
    expect(await ns.publish(publishRequest('ns', subject, { ...replay, attempt: 1 }))).toEqual({
      ok: true,
    });
    expect(await kit.messages(name)).toHaveLength(2);
  });

  it('publishes on core NATS with jetStream: false (flushed, no Nats-Msg-Id), also where no stream listens', async () => {
    const { name, subject } = await stream('core');
    const ns = publisher({ jetStream: false });
    const message = outboxMessage();
    expect(await ns.publish(publishRequest('ns', subject, message))).toEqual({ ok: true });
    expect(await ns.publish(publishRequest('ns', kit.subject('nobody.listens')))).toEqual({
      ok: true,
    });
    const [stored] = await kit.messages(name);
    expect(stored!.headers['x-message-id']).toEqual([message.id]);
    expect(stored!.headers['Nats-Msg-Id']).toBeUndefined();
  });

  it('fails a JetStream publish no stream takes, a blank or wildcard subject, and leaves out header names NATS cannot carry', async () => {
    const { name, subject } = await stream('refused');
    const { logger, lines } = warningLogger();
    const ns = publisher({}, { logger });
    expect(await ns.publish(publishRequest('ns', kit.subject('no.stream')))).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish failed: no JetStream stream takes this subject (503 no responders)',
        retryable: true,
      }) as unknown,
    });
    expect(await ns.publish(publishRequest('ns', '  '))).toMatchObject({
      ok: false,
      error: expect.objectContaining({
        message: expect.stringContaining('resolved no subject'),
      }) as unknown,
    });
    for (const bad of [`${subject}.>`, `${subject}..x`, 'a b']) {
      expect(await ns.publish(publishRequest('ns', bad))).toMatchObject({
        ok: false,
        error: expect.objectContaining({
          message: expect.stringContaining('is not a subject NATS can publish to'),
          retryable: false,
        }) as unknown,
      });
    }
    const message = outboxMessage({
      headers: { 'bad name': 'v', é: 'v', 'a:b': 'v', kept: 'line1\r\nline2', ünï: 'x' },
    });
    expect(await ns.publish(publishRequest('ns', subject, message))).toEqual({ ok: true });
    const [stored] = await kit.messages(name);
    expect(stored!.headers.kept).toEqual(['line1%0D%0Aline2']);
    expect(Object.keys(stored!.headers)).not.toContain('bad name');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `Message ${message.id} has header name(s) "bad name", "é", "a:b", "ünï"`,
    );
  });

  it('keeps 64 publishes in flight on one destination, each acknowledged on its own', async () => {
    const { name, subject } = await stream('inflight');
    const through = await proxy();
    const ns = publisher({}, { servers: viaProxy(through) });
    expect(await ns.publish(publishRequest('ns', subject))).toEqual({ ok: true });
    // Every PubAck now takes 300 ms to come back: one at a time, 64 would take 19 s.
    through.setLatency({ toClient: 300 });
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 64 }, () => ns.publish(publishRequest('ns', subject))),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await kit.messages(name)).toHaveLength(65);
  });

  it('fails every publish waiting for its PubAck when the connection is lost, fails at once while reconnecting, and publishes again after', async () => {
    const { name, subject } = await stream('lost');
    const through = await proxy();
    const ns = publisher({}, { servers: viaProxy(through) });
    expect(await ns.publish(publishRequest('ns', subject))).toEqual({ ok: true });
    through.setLatency({ toClient: 2_000 });
    const inFlight = Array.from({ length: 8 }, () => ns.publish(publishRequest('ns', subject)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    through.refuse();
    through.cut();
    const started = Date.now();
    const results = await Promise.all(inFlight);
    expect(Date.now() - started).toBeLessThan(1_000);
    for (const result of results) {
      expect(result).toMatchObject({ ok: false });
      expect((result as { error: Error }).error.message).toMatch(
        /^Publish failed: the connection to NATS was lost, so message .* was not acknowledged$/,
      );
    }
    const during = await ns.publish(publishRequest('ns', subject));
    expect(during).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish failed: the connection to NATS is lost and the client is reconnecting',
        retryable: true,
      }) as unknown,
    });
    through.setLatency(0);
    through.restore();
    const after = outboxMessage();
    for (let i = 0; ; i++) {
      const outcome = await ns.publish(publishRequest('ns', subject, after));
      if (outcome.ok) break;
      if (i > 100) throw new Error(`no reconnect: ${JSON.stringify(outcome)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The lost ones may have been stored before the cut: at-least-once.
    const stored = await kit.messages(name);
    expect(stored.some((m) => m.headers['x-message-id']?.[0] === after.id)).toBe(true);
  });

  it('fails at once while the server refuses the first connection, naming the server, and connects once it answers', async () => {
    const { subject } = await stream('refusing');
    const nobody = await freePort();
    const unheard = publisher({ timeoutMs: 5_000 }, { servers: `nats://127.0.0.1:${nobody}` });
    expect(await unheard.publish(publishRequest('ns', subject))).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: `Publish failed: Connecting to NATS failed: connection refused (connect ECONNREFUSED 127.0.0.1:${nobody})`,
        retryable: true,
      }) as unknown,
    });
    const through = await proxy();
    through.refuse();
    const ns = publisher({ timeoutMs: 5_000 }, { servers: viaProxy(through) });
    const started = Date.now();
    const outcome = await ns.publish(publishRequest('ns', subject));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(outcome).toMatchObject({ ok: false });
    expect((outcome as { error: Error }).error.message).toMatch(
      /^Publish failed: Connecting to NATS failed: /,
    );
    expect((outcome as { error: Error }).error.message).toContain(
      `${through.host}:${through.port}`,
    );
    through.restore();
    expect(await ns.publish(publishRequest('ns', subject))).toEqual({ ok: true });
  });

  it('refuses publishes after close and names destinations it does not serve', async () => {
    const ns = publisher();
    expect(ns.supports('ns')).toBe(true);
    expect(ns.supports('other')).toBe(false);
    expect(await ns.publish(publishRequest('other', 'x'))).toMatchObject({ ok: false });
    await ns.close();
    expect(await ns.publish(publishRequest('ns', 'x'))).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish failed: the publisher is closed',
        retryable: true,
      }) as unknown,
    });
  });
});

describe.skipIf(!privateServerAvailable())('NATS publisher credentials', () => {
  it('connects with user and password, and fails without revealing them when they are wrong', async () => {
    const server = await startPrivateServer(['--user', 'qb', '--pass', 's3cret']);
    try {
      const publish = async (password: string) => {
        const ns = createNatsPublisher(
          destinations({
            ns: natsDestination(server.url, {
              jetStream: false,
              timeoutMs: 3_000,
              username: 'qb',
              password: new Secret(password),
            }),
          }),
          { logger: silentLogger },
        );
        try {
          return await ns.publish(publishRequest('ns', 'orders.created'));
        } finally {
          await ns.close();
        }
      };
      expect(await publish('s3cret')).toEqual({ ok: true });
      const refused = await publish('wrong-pass');
      expect(refused).toMatchObject({ ok: false });
      expect((refused as { error: Error }).error.message).toMatch(
        /^Publish failed: Connecting to NATS failed: .*(auth|Authorization)/i,
      );
      expect((refused as { error: Error }).error.message).not.toContain('wrong-pass');
    } finally {
      await server.stop();
    }
  });

  it('connects with a token', async () => {
    const server = await startPrivateServer(['--auth', 'tok-123']);
    try {
      const ns = createNatsPublisher(
        destinations({
          ns: natsDestination(server.url, {
            jetStream: false,
            timeoutMs: 3_000,
            token: new Secret('tok-123'),
          }),
        }),
        { logger: silentLogger },
      );
      expect(await ns.publish(publishRequest('ns', 'orders.created'))).toEqual({ ok: true });
      await ns.close();
    } finally {
      await server.stop();
    }
  });
});
