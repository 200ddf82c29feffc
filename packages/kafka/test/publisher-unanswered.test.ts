import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import {
  silentLogger,
  type CancelListener,
  type KafkaDestinationConfig,
  type PublishOutcome,
} from '@queuebox/core';
import { outboxMessage } from '@queuebox/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createKafkaPublisher } from '../src/index.js';
import { kafkaDestination, publishRequest } from './publish-requests.js';

/**
 * The publisher's budget against a "broker" that accepts connections and never answers, which
 * needs no Kafka: every publish fails at its own `timeoutMs` (not before, not long after), an abort
 * ends it at once, close() ends within a bound, and a destination whose send hung still serves
 * the next row (a new producer, a new connection).
 */
describe('Kafka publisher against a broker that never answers', () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function silentBroker(): Promise<{ address: string; connections: () => number }> {
    let connections = 0;
    server = createServer((socket) => {
      connections++;
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { address: `127.0.0.1:${port}`, connections: () => connections };
  }

  const publisherFor = (overrides: Partial<KafkaDestinationConfig>) =>
    createKafkaPublisher(
      { destinations: { k: kafkaDestination({ topic: 'orders', ...overrides }) } },
      { logger: silentLogger },
    );

  it('fails each publish of a batch within timeoutMs, never holding a row past its budget', async () => {
    const broker = await silentBroker();
    const publisher = publisherFor({ bootstrapServers: broker.address, timeoutMs: 2_000 });
    const started = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: 3 }, () => publisher.publish(publishRequest('k', 'orders', null))),
    );
    const elapsed = performance.now() - started;
    // kafkajs gives up on the handshake after its request timeout (1000 ms here) or the budget
    // ends first: either way every row of the batch fails with the same text, within the budget.
    const texts = new Set(outcomes.map((outcome) => (outcome.ok ? 'ok' : outcome.error.message)));
    expect(texts.size).toBe(1);
    expect([...texts][0]).toMatch(/^Publish (failed|not acknowledged): /);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(2_500);
    expect(broker.connections()).toBeGreaterThanOrEqual(1);
    await publisher.close();
  });

  it('sends the next row on a new producer once a send outlived its rows', async () => {
    const broker = await silentBroker();
    const publisher = publisherFor({ bootstrapServers: broker.address, timeoutMs: 2_000 });
    expect((await publisher.publish(publishRequest('k', 'orders', null))).ok).toBe(false);
    const before = broker.connections();
    const second = publisher.publish(publishRequest('k', 'orders', null));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A destination held by the hung send would open nothing until kafkajs gave up on it.
    expect(broker.connections()).toBeGreaterThan(before);
    expect(await second).toMatchObject({ ok: false });
    await publisher.close();
  });

  it('ends a publish at once when its caller aborts, and close() fails what is in flight', async () => {
    const broker = await silentBroker();
    const publisher = publisherFor({ bootstrapServers: broker.address, timeoutMs: 30_000 });
    const controller = new AbortController();
    const aborted = publisher.publish(
      publishRequest('k', 'orders', null, outboxMessage(), controller.signal),
    );
    const inFlight = publisher.publish(publishRequest('k', 'orders', null));
    setTimeout(() => controller.abort(), 100);
    expect(await aborted).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish abandoned: the claim on the message ended',
      }) as unknown,
    });
    const started = performance.now();
    await publisher.close();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await inFlight).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish failed: the publisher is closed',
      }) as unknown,
    });
    expect(await publisher.publish(publishRequest('k', 'orders', null))).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish failed: the publisher is closed',
      }) as unknown,
    });
    await publisher.close();
  });

  it('holds each row to its own budget, counted from its own publish', async () => {
    const broker = await silentBroker();
    const publisher = publisherFor({ bootstrapServers: broker.address, timeoutMs: 2_000 });
    const started = performance.now();
    const settledAt = (outcome: Promise<PublishOutcome>) =>
      outcome.then((result) => ({ result, ms: performance.now() - started }));
    const first = settledAt(publisher.publish(publishRequest('k', 'orders', null)));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const second = settledAt(publisher.publish(publishRequest('k', 'orders', null)));
    const [a, b] = await Promise.all([first, second]);
    expect(a.result).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish not acknowledged: Kafka sent no ack within 2000 ms',
        retryable: true,
      }) as unknown,
    });
    expect(b.result).toEqual(a.result);
    expect(a.ms).toBeGreaterThanOrEqual(1_990);
    // The later row is not failed with the earlier one: its budget started a second later.
    expect(b.ms).toBeGreaterThanOrEqual(2_990);
    await publisher.close();
  });

  it('ends a publish when the claim it watches is lost, and stops watching once settled', async () => {
    const broker = await silentBroker();
    const publisher = publisherFor({ bootstrapServers: broker.address, timeoutMs: 30_000 });
    const watched = new Set<CancelListener>();
    const claim = (lost: boolean) => ({
      watchCancel: (listener: CancelListener) => {
        if (lost) return false;
        watched.add(listener);
        return true;
      },
      unwatchCancel: (listener: CancelListener) => void watched.delete(listener),
    });
    const ABANDONED = {
      ok: false,
      error: expect.objectContaining({
        message: 'Publish abandoned: the claim on the message ended',
      }) as unknown,
    };
    // A claim already lost: nothing is sent.
    expect(
      await publisher.publish({ ...publishRequest('k', 'orders', null), ...claim(true) }),
    ).toEqual(ABANDONED);
    const live = publisher.publish({ ...publishRequest('k', 'orders', null), ...claim(false) });
    const other = publisher.publish({ ...publishRequest('k', 'orders', null), ...claim(false) });
    expect(watched.size).toBe(2);
    const [listener] = watched;
    listener!.cancelled(new Error('lease lost'));
    expect(await live).toEqual(ABANDONED);
    expect(watched.size).toBe(1);
    await publisher.close();
    expect(await other).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: 'Publish failed: the publisher is closed',
      }) as unknown,
    });
    expect(watched.size).toBe(0);
  });

  it('fails a row it cannot address without connecting, and names destinations it does not serve', async () => {
    const broker = await silentBroker();
    const publisher = publisherFor({ bootstrapServers: broker.address });
    expect(publisher.supports('k')).toBe(true);
    expect(publisher.supports('other')).toBe(false);
    expect(await publisher.publish(publishRequest('other', 'orders', null))).toEqual({
      ok: false,
      error: expect.objectContaining({
        message: "No publisher supports destination 'other'",
      }) as unknown,
    });
    expect(await publisher.publish(publishRequest('k', 'bad topic', null))).toMatchObject({
      ok: false,
      error: expect.objectContaining({
        message: expect.stringMatching(/is not a Kafka topic name/),
        retryable: false,
      }) as unknown,
    });
    expect(broker.connections()).toBe(0);
    await publisher.close();
  });
});
