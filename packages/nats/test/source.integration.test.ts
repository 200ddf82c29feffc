import { type DeliveryHandler, type Logger, silentLogger } from '@queuebox/core';
import {
  createNatsKit,
  eventually,
  recordingHandler,
  requireService,
  startFaultProxy,
  warningLogger,
  serviceUrl,
  suiteScope,
} from '@queuebox/testing';
import { AckPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { NatsSourceConsumer } from '../src/index.js';
import { natsSource, serverAddress, viaProxy } from './nats-config.js';

const nats = await requireService('nats', 'nats: source consumer');
const url = serviceUrl(nats);

/**
 * What the NATS source does beyond the broker contract: the durable consumer it creates, the
 * existing one it refuses, the stream it never creates, headers and JetStream metadata, a server
 * down at start, a stream deleted under it, and the nak delay that keeps a store outage from
 * becoming a redelivery loop.
 */
describe.skipIf(!nats.available)('NATS source consumer', () => {
  const { kit, closing } = suiteScope(() => createNatsKit(url, 'qb-src'));

  const consumer = (
    handler: DeliveryHandler,
    overrides: Parameters<typeof natsSource>[0],
    logger: Logger = silentLogger,
  ) => {
    const created = new NatsSourceConsumer(
      'orders',
      natsSource({ servers: url, durable: 'queuebox', ...overrides }),
      { handler, logger },
    );
    return closing(created);
  };

  const stream = (suffix: string) => kit.stream(kit.name(suffix), [kit.subject(`${suffix}.>`)]);

  it('creates a missing durable pull consumer with explicit acks, ackWaitMs and the filter subject', async () => {
    const name = await stream('create');
    const source = consumer(recordingHandler().handler, {
      stream: name,
      ackWaitMs: 7_000,
      filterSubject: kit.subject('create.eu.>'),
    });
    await source.start();
    expect(source.isHealthy()).toBe(true);
    const info = await (await kit.manager()).consumers.info(name, 'queuebox');
    expect(info.config).toMatchObject({
      durable_name: 'queuebox',
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(7_000),
      filter_subject: kit.subject('create.eu.>'),
    });
    expect(info.config.deliver_subject).toBeUndefined();
  });

  it('reads only what the filter subject takes, with the headers (last value) and JetStream metadata', async () => {
    const name = await stream('read');
    const { handler, deliveries } = recordingHandler();
    await consumer(handler, { stream: name, filterSubject: kit.subject('read.eu.>') }).start();
    await kit.publish(kit.subject('read.us.1'), '{"id":"us"}');
    const before = Date.now();
    await kit.publish(kit.subject('read.eu.1'), '{"id":"eu"}', {
      headers: { 'x-tenant': 't1', 'X-Idempotency-Key': 'k-1' },
      msgId: 'msg-eu-1',
    });
    const [delivery] = await eventually(() => deliveries.length > 0 && deliveries);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(deliveries).toHaveLength(1);
    expect(Buffer.from(delivery!.body).toString()).toBe('{"id":"eu"}');
    expect(delivery!.headers).toEqual({
      'x-tenant': 't1',
      'X-Idempotency-Key': 'k-1',
      'Nats-Msg-Id': 'msg-eu-1',
    });
    expect(delivery!.fallbacks.idempotencyKey).toBe('msg-eu-1');
    expect(Math.abs(delivery!.fallbacks.publishTime!.getTime() - before)).toBeLessThan(5_000);
  });

  it('refuses to start on a stream that does not exist, naming it, and never creates it', async () => {
    const missing = kit.name('missing');
    const source = consumer(recordingHandler().handler, { stream: missing });
    await expect(source.start()).rejects.toThrow(
      `sources.orders: the JetStream stream '${missing}' does not exist. QueueBox never creates a stream`,
    );
    expect(source.isHealthy()).toBe(false);
    await expect((await kit.manager()).streams.info(missing)).rejects.toThrow();
  });

  it('refuses an existing durable consumer whose settings differ, naming each difference, and leaves it as it is', async () => {
    const name = await stream('differs');
    const manager = await kit.manager();
    await manager.consumers.add(name, {
      durable_name: 'queuebox',
      ack_policy: AckPolicy.All,
      ack_wait: nanos(60_000),
      filter_subject: kit.subject('differs.x'),
    });
    const source = consumer(recordingHandler().handler, { stream: name, ackWaitMs: 30_000 });
    await expect(source.start()).rejects.toThrow(
      `sources.orders: the durable consumer 'queuebox' on stream '${name}' exists with settings other than this source's: ack_policy all (the source acks explicitly); ack_wait 60000 ms (ackWaitMs is 30000 ms); filter_subject '${kit.subject('differs.x')}' (filterSubject is not set).`,
    );
    const info = await manager.consumers.info(name, 'queuebox');
    expect(info.config.ack_policy).toBe(AckPolicy.All);
  });

  it('uses an existing durable consumer with the same settings, resuming where it stopped', async () => {
    const name = await stream('resume');
    const first = recordingHandler();
    const one = consumer(first.handler, { stream: name });
    await one.start();
    await kit.publish(kit.subject('resume.1'), '{"id":1}');
    await eventually(() => first.deliveries.length === 1);
    await one.close();
    await kit.publish(kit.subject('resume.2'), '{"id":2}');
    const second = recordingHandler();
    await consumer(second.handler, { stream: name }).start();
    await eventually(() => second.deliveries.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.deliveries.map((d) => Buffer.from(d.body).toString())).toEqual(['{"id":2}']);
  });

  it('starts while the server is unreachable, reports down, and consumes once it answers', async () => {
    const name = await stream('late');
    const proxy = await startFaultProxy({ target: serverAddress(url) });
    closing(proxy);
    proxy.refuse();
    const { handler, deliveries } = recordingHandler();
    const { logger, lines } = warningLogger();
    const source = consumer(handler, { stream: name, servers: viaProxy(proxy) }, logger);
    await source.start();
    expect(source.isHealthy()).toBe(false);
    expect(lines[0]).toMatch(
      /^Source 'orders' cannot reach NATS yet, so it keeps trying in the background\. Reason: /,
    );
    await kit.publish(kit.subject('late.1'), '{"id":1}');
    proxy.restore();
    await eventually(() => source.isHealthy());
    await eventually(() => deliveries.length === 1);
  });

  it('goes down when its stream is deleted and consumes again once the stream is back', async () => {
    const name = await stream('deleted');
    const { handler, deliveries } = recordingHandler();
    const source = consumer(handler, { stream: name });
    await source.start();
    await (await kit.manager()).streams.delete(name);
    await eventually(() => !source.isHealthy());
    await stream('deleted');
    await eventually(() => source.isHealthy(), 15_000);
    await kit.publish(kit.subject('deleted.1'), '{"id":1}');
    await eventually(() => deliveries.length === 1);
  });

  it('naks with a growing delay while the handler cannot store, so an outage is no hot loop', async () => {
    const name = await stream('backoff');
    const { handler, deliveries } = recordingHandler(() => ({
      settle: 'retry',
      reason: 'the store is down',
    }));
    await consumer(handler, { stream: name, batchSize: 1 }).start();
    await kit.publish(kit.subject('backoff.1'), '{"id":1}');
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    // 100, 200, 400, 800 ms: about five deliveries in 1.6 s, where an immediate nak makes hundreds.
    expect(deliveries.length).toBeGreaterThanOrEqual(3);
    expect(deliveries.length).toBeLessThanOrEqual(6);
  });

  it('hands a fetched batch over at once, in stream order', async () => {
    const name = await stream('batch');
    for (let i = 0; i < 50; i++) await kit.publish(kit.subject('batch.1'), `{"id":${i}}`);
    const order: number[] = [];
    let inHand = 0;
    let most = 0;
    const handler: DeliveryHandler = {
      async handle(delivery) {
        order.push((JSON.parse(Buffer.from(delivery.body).toString()) as { id: number }).id);
        inHand += 1;
        most = Math.max(most, inHand);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inHand -= 1;
        return { settle: 'ack', outcome: 'stored' };
      },
    };
    const source = consumer(handler, { stream: name, batchSize: 25 });
    await source.start();
    await eventually(() => order.length === 50);
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(most).toBe(25);
    await source.close();
    expect(await kit.outstanding(name, 'queuebox')).toBe(0);
  });
});
