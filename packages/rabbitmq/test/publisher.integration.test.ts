import { randomUUID } from 'node:crypto';
import { JsonPayload, silentLogger, type Logger } from '@queuebox/core';
import {
  createRabbitKit,
  requireService,
  startFaultProxy,
  serviceUrl,
  suiteScope,
} from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { createRabbitPublisher } from '../src/index.js';
import {
  destinations,
  outboxMessage,
  publishRequest,
  rabbitDestination,
} from './publish-requests.js';
import { brokerAddress, viaProxy } from './source-config.js';

const rabbit = await requireService('rabbitmq', 'rabbitmq: publisher');
const url = serviceUrl(rabbit);

/**
 * The publisher against the real broker: the reference wire format, one confirm per message with
 * many in flight, and every way a publish fails (returned, nacked, unconfirmed, refused
 * declaration, lost channel) failing only the messages it concerns.
 */
describe.skipIf(!rabbit.available)('RabbitMQ publisher', () => {
  const { kit, closing } = suiteScope(() => createRabbitKit(url, 'qb-publisher'));

  const publisher = (
    config: Parameters<typeof rabbitDestination>[1] = {},
    options: { url?: string; logger?: Logger } = {},
  ) => {
    const created = createRabbitPublisher(
      destinations({ mq: rabbitDestination(options.url ?? url, config) }),
      { logger: options.logger ?? silentLogger },
    );
    return closing(created);
  };

  /** An exchange of the given type with one queue bound by `#` (or `patterns`). */
  const boundQueue = async (suffix: string, type = 'topic', patterns = ['#']) => {
    const exchange = await kit.exchange(kit.name(`${suffix}.x`), type);
    const queue = await kit.queue(kit.name(`${suffix}.q`), { exchange, patterns });
    return { exchange, queue };
  };

  it('publishes the reference wire format: properties, x-topic, x-attempt, static and row headers, the stored text', async () => {
    const { exchange, queue } = await boundQueue('wire');
    const collector = await kit.collect(queue);
    const mq = publisher({ headers: { 'X-Static': 'static', 'X-Env': 'prod' } });
    const text = '{"id": 12345678901234567890, "amount": 1.50, "huge": 1e400}';
    const message = outboxMessage({
      topic: 'order.created',
      attempt: 3,
      payload: JsonPayload.fromText(text),
      headers: { 'X-Correlation-Id': 'corr-1', 'x-env': 'row-wins', 'X-Count': 7 } as never,
    });
    const outcome = await mq.publish(publishRequest('mq', exchange, 'order.created', message));
    expect(outcome).toEqual({ ok: true });
    const [received] = await collector.waitFor(1);
    expect(received!.text).toBe(text);
    expect(received!.exchange).toBe(exchange);
    expect(received!.routingKey).toBe('order.created');
    expect(received!.properties.messageId).toBe(message.id);
    expect(received!.properties.contentType).toBe('application/json');
    expect(received!.properties.deliveryMode).toBe(2);
    expect(received!.headers).toEqual({
      'x-topic': 'order.created',
      'x-attempt': 3,
      'X-Static': 'static',
      'x-env': 'row-wins',
      'X-Correlation-Id': 'corr-1',
      // A value the headers column holds as JSON that is not a string goes as its JSON text.
      'X-Count': '7',
    });
  });

  it('keeps x-topic and x-attempt on every row, and static headers over a relayed row', async () => {
    const { exchange, queue } = await boundQueue('precedence');
    const collector = await kit.collect(queue);
    const mq = publisher({ headers: { 'X-Api-Key': 'configured' } });
    const own = outboxMessage({ headers: { 'x-topic': 'mine', 'x-attempt': '9' } });
    const relayed = outboxMessage({
      topic: 'stripe',
      attempt: 1,
      headers: {
        'x-inbox-id': randomUUID(),
        'x-source': 'stripe',
        'x-api-key': 'forged',
        'x-topic': 'forged',
        'X-Attempt': '99',
      },
    });
    expect(await mq.publish(publishRequest('mq', exchange, 'a', own))).toEqual({ ok: true });
    expect(await mq.publish(publishRequest('mq', exchange, 'b', relayed))).toEqual({ ok: true });
    const [first, second] = await collector.waitFor(2);
    expect(first!.headers).toMatchObject({ 'x-topic': own.topic, 'x-attempt': 0 });
    expect(second!.headers['x-topic']).toBe('stripe');
    expect(second!.headers['x-attempt']).toBe(1);
    expect(second!.headers['X-Attempt']).toBeUndefined();
    expect(second!.headers['X-Api-Key']).toBe('configured');
    expect(second!.headers['x-api-key']).toBeUndefined();
    expect(second!.headers['x-source']).toBe('stripe');
  });

  it('sends transient messages with delivery mode 1 and declares the exchange with its type', async () => {
    const exchange = kit.name('declared.direct');
    kit.adopt('exchange', exchange);
    const mq = publisher({ deliveryMode: 'transient', exchangeType: 'direct' });
    // The first publish declares it: unroutable, since nothing is bound yet.
    const first = await mq.publish(publishRequest('mq', exchange, 'k'));
    expect(first).toMatchObject({ ok: false });
    await (await kit.channel()).checkExchange(exchange);
    const queue = await kit.queue(kit.name('declared.q'), { exchange, patterns: ['k'] });
    const collector = await kit.collect(queue);
    expect(await mq.publish(publishRequest('mq', exchange, 'k'))).toEqual({ ok: true });
    const [received] = await collector.waitFor(1);
    expect(received!.properties.deliveryMode).toBe(1);
    // Declared as direct: a topic pattern does not route on it.
    expect(await mq.publish(publishRequest('mq', exchange, 'k.other'))).toMatchObject({
      ok: false,
    });
  });

  it('fails an unroutable message with the reference text', async () => {
    const { exchange } = await boundQueue('unroutable', 'topic', ['bound.*']);
    const mq = publisher();
    const message = outboxMessage();
    const outcome = await mq.publish(publishRequest('mq', exchange, 'nobody.home', message));
    expect(outcome).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: `Message ${message.id} is unroutable on exchange ${exchange} with routing key nobody.home`,
        retryable: true,
      }) as unknown,
    });
  });

  it('fails a message the broker nacks, and only that one', async () => {
    const exchange = await kit.exchange(kit.name('nack.x'));
    await kit.queue(
      kit.name('nack.full'),
      { exchange, patterns: ['full'] },
      { arguments: { 'x-max-length': 0, 'x-overflow': 'reject-publish' } },
    );
    const okQueue = await kit.queue(kit.name('nack.ok'), { exchange, patterns: ['ok'] });
    const collector = await kit.collect(okQueue);
    const mq = publisher();
    const nacked = outboxMessage();
    const [full, ok] = await Promise.all([
      mq.publish(publishRequest('mq', exchange, 'full', nacked)),
      mq.publish(publishRequest('mq', exchange, 'ok')),
    ]);
    expect(full).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: `Publish not confirmed: the broker nacked message ${nacked.id}`,
        retryable: true,
      }) as unknown,
    });
    expect(ok).toEqual({ ok: true });
    await collector.waitFor(1);
  });

  it('fails a message whose exchange cannot be declared, and only that one', async () => {
    const { exchange, queue } = await boundQueue('declare');
    const fanout = await kit.exchange(kit.name('declare.fanout'), 'fanout');
    const collector = await kit.collect(queue);
    const mq = publisher();
    const results = await Promise.all([
      mq.publish(publishRequest('mq', exchange, 'a')),
      // Exists as fanout; the destination declares topic: the broker refuses (406).
      mq.publish(publishRequest('mq', fanout, 'a')),
      mq.publish(publishRequest('mq', exchange, 'b')),
    ]);
    expect(results[0]).toEqual({ ok: true });
    expect(results[2]).toEqual({ ok: true });
    expect(results[1]).toMatchObject({ ok: false });
    expect((results[1] as { error: Error }).error.message).toMatch(
      new RegExp(
        `^Publish failed: Declaring exchange '${fanout.replace(/\./g, '\\.')}' of type 'topic' failed: .*PRECONDITION`,
      ),
    );
    // The refusal closed only the declaration channel: the next publish goes out.
    expect(await mq.publish(publishRequest('mq', exchange, 'c'))).toEqual({ ok: true });
    await collector.waitFor(3);
  });

  it('fails an empty address, a routing key past 255 bytes and oversized headers without touching other publishes', async () => {
    const { exchange, queue } = await boundQueue('refused');
    const collector = await kit.collect(queue);
    const mq = publisher();
    const huge = outboxMessage({ headers: { big: 'x'.repeat(70_000) } });
    const results = await Promise.all([
      mq.publish(publishRequest('mq', '  ', 'k')),
      mq.publish(publishRequest('mq', exchange, 'k'.repeat(256))),
      mq.publish(publishRequest('mq', exchange, 'k', huge)),
      mq.publish(publishRequest('mq', exchange, 'fine')),
    ]);
    expect(results[0]).toMatchObject({
      ok: false,
      error: expect.objectContaining({
        message: expect.stringContaining('no exchange'),
        retryable: false,
      }) as unknown,
    });
    expect(results[1]).toMatchObject({
      ok: false,
      error: expect.objectContaining({
        message: expect.stringContaining('255 bytes'),
        retryable: false,
      }) as unknown,
    });
    expect(results[2]).toMatchObject({
      ok: false,
      error: expect.objectContaining({
        message: expect.stringContaining(`The headers of message ${huge.id} take`),
        retryable: false,
      }) as unknown,
    });
    expect(results[3]).toEqual({ ok: true });
    const [received] = await collector.waitFor(1);
    expect(received!.routingKey).toBe('fine');
  });

  it('leaves out a header name longer than 255 bytes and says so', async () => {
    const { exchange, queue } = await boundQueue('longname');
    const collector = await kit.collect(queue);
    const warnings: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      warn: (text) => warnings.push(text),
      child: () => logger,
    };
    const mq = publisher({}, { logger });
    const message = outboxMessage({ headers: { ['n'.repeat(256)]: 'v', kept: 'yes' } });
    expect(await mq.publish(publishRequest('mq', exchange, 'k', message))).toEqual({ ok: true });
    const [received] = await collector.waitFor(1);
    expect(received!.headers).toMatchObject({ kept: 'yes' });
    expect(Object.keys(received!.headers)).not.toContain('n'.repeat(256));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`Message ${message.id} has header name(s)`);
  });

  it('keeps 64 publishes in flight on one destination, each confirmed on its own', async () => {
    const { exchange, queue } = await boundQueue('inflight');
    const collector = await kit.collect(queue);
    const proxy = await startFaultProxy({ target: brokerAddress(url) });
    closing(proxy);
    const mq = publisher({}, { url: viaProxy(url, proxy) });
    expect(await mq.publish(publishRequest('mq', exchange, 'warm'))).toEqual({ ok: true });
    // Every confirm now takes 300 ms to come back: one at a time, 64 would take 19 s.
    proxy.setLatency({ toClient: 300 });
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) => mq.publish(publishRequest('mq', exchange, `m.${i}`))),
    );
    const elapsed = Date.now() - started;
    expect(results.every((r) => r.ok)).toBe(true);
    expect(elapsed).toBeLessThan(3_000);
    await collector.waitFor(65);
  });

  it('fails a publish the broker does not confirm within 5000 ms with "Publish not confirmed"', async () => {
    const { exchange } = await boundQueue('unconfirmed');
    const proxy = await startFaultProxy({ target: brokerAddress(url) });
    closing(proxy);
    const mq = publisher({}, { url: viaProxy(url, proxy) });
    expect(await mq.publish(publishRequest('mq', exchange, 'warm'))).toEqual({ ok: true });
    proxy.setLatency({ toClient: 8_000 });
    const started = Date.now();
    const outcome = await mq.publish(publishRequest('mq', exchange, 'slow'));
    const elapsed = Date.now() - started;
    expect(outcome).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish not confirmed',
        retryable: true,
      }) as unknown,
    });
    expect(elapsed).toBeGreaterThanOrEqual(4_900);
    expect(elapsed).toBeLessThan(6_500);
  }, 20_000);

  it('fails every unconfirmed publish when the connection is lost, and the next publish opens a new one', async () => {
    const { exchange, queue } = await boundQueue('lost');
    const collector = await kit.collect(queue);
    const proxy = await startFaultProxy({ target: brokerAddress(url) });
    closing(proxy);
    const mq = publisher({}, { url: viaProxy(url, proxy) });
    expect(await mq.publish(publishRequest('mq', exchange, 'warm'))).toEqual({ ok: true });
    proxy.setLatency({ toClient: 2_000 });
    const inFlight = Array.from({ length: 8 }, (_, i) =>
      mq.publish(publishRequest('mq', exchange, `lost.${i}`)),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.cut();
    const started = Date.now();
    const results = await Promise.all(inFlight);
    expect(Date.now() - started).toBeLessThan(1_000);
    for (const result of results) {
      expect(result).toMatchObject({ ok: false });
      expect((result as { error: Error }).error.message).toMatch(
        /^Publish failed: .*was not confirmed$/,
      );
    }
    proxy.setLatency(0);
    expect(await mq.publish(publishRequest('mq', exchange, 'after'))).toEqual({ ok: true });
    expect(proxy.stats().accepted).toBe(2);
    // The broker may have routed some of the lost ones before the cut: at-least-once.
    await collector.waitFor(2);
    expect(collector.messages.some((m) => m.routingKey === 'after')).toBe(true);
  });

  it('fails at once while the broker refuses connections, and recovers when it answers again', async () => {
    const { exchange } = await boundQueue('refusing');
    const proxy = await startFaultProxy({ target: brokerAddress(url) });
    closing(proxy);
    proxy.refuse();
    const mq = publisher({}, { url: viaProxy(url, proxy) });
    const outcome = await mq.publish(publishRequest('mq', exchange, 'k'));
    expect(outcome).toMatchObject({ ok: false });
    expect((outcome as { error: Error }).error.message).toMatch(
      /^Publish failed: Connecting to RabbitMQ failed: /,
    );
    expect((outcome as { error: Error }).error.message).not.toContain('guest:guest');
    proxy.restore();
    expect(await mq.publish(publishRequest('mq', exchange, 'k'))).toEqual({ ok: true });
  });

  it('refuses publishes after close and names destinations it does not serve', async () => {
    const mq = publisher();
    expect(mq.supports('mq')).toBe(true);
    expect(mq.supports('other')).toBe(false);
    expect(await mq.publish(publishRequest('other', 'x', 'k'))).toMatchObject({ ok: false });
    await mq.close();
    expect(await mq.publish(publishRequest('mq', 'x', 'k'))).toMatchObject({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish failed: the publisher is closed',
      }) as unknown,
    });
  });
});
