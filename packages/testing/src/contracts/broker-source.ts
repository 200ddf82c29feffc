/**
 * The broker source contract (dev only): what every broker source (RabbitMQ, Kafka, NATS
 * JetStream) does behind core's SourceConsumer port, checked against a real broker with a
 * scripted DeliveryHandler instead of the inbox. The body arrives byte for byte, the broker's own
 * attributes arrive as fallbacks, a delivery is acknowledged only after the handler reports it
 * handled and never before, a `retry` comes back, at most `maxInFlight` deliveries are in hand,
 * readiness follows the connection, a lost connection is re-established without losing a message,
 * and close() settles what is in hand.
 *
 * A broker runs it with a harness whose consumer reads a fresh queue (topic, stream) through a
 * fault proxy, and a probe that publishes raw messages and counts what the broker still holds.
 */
import type {
  DeliveryHandler,
  DeliveryVerdict,
  Logger,
  SourceConsumer,
  SourceDelivery,
} from '@queuebox/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FaultProxy } from '../fault-proxy.js';
import { serviceSkip, serviceUrl, type ServiceLookup } from '../services.js';
import { skipTitle } from './probe.js';
import { brokerSourceRules, type IngestFactory } from './broker-source-rules.js';

export interface PublishedMessage {
  readonly body: Uint8Array | string;
  /** Text headers; a broker without headers ignores them. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The broker's own id slot: AMQP `message_id`, the Kafka record key, `Nats-Msg-Id`. */
  readonly id?: string;
  /** AMQP `correlation_id`; brokers without one ignore it. */
  readonly correlationId?: string;
  /** The publisher-set time (AMQP `timestamp`, the Kafka record timestamp), where one exists. */
  readonly publishTime?: Date;
}

/** Reads and writes the broker past the adapter. */
export interface BrokerProbe {
  publish(message: PublishedMessage): Promise<void>;
  /**
   * Messages the broker still holds for the source: not yet delivered, or delivered and not
   * acknowledged. The contract calls it only while the consumer under test is closed or cut off.
   */
  outstanding(): Promise<number>;
  /** AMQP only: publishes a message whose headers are signed 64-bit integers, exactly. */
  readonly publishInt64Headers?: (
    body: string,
    headers: Readonly<Record<string, bigint>>,
  ) => Promise<void>;
}

export interface BrokerSourceHarness {
  /** The adapter under test on the harness's fresh queue, connected through `proxy`. */
  consumer(handler: DeliveryHandler, logger?: Logger): SourceConsumer;
  readonly probe: BrokerProbe;
  /** Between the consumer and the broker; the probe goes around it. */
  readonly proxy: FaultProxy;
  /** The most deliveries the consumer hands over at once (prefetch, or 1 when sequential). */
  readonly maxInFlight: number;
  /** The readiness component the consumer names, e.g. `rabbitmq.<source>`. */
  readonly healthComponent: string;
  /** Which fallbacks this broker fills from a published message. */
  readonly fallbacks: {
    readonly idempotencyKey: boolean;
    readonly correlationId: boolean;
    /** `given`: the published time; `broker`: the broker's own (a store time); `none`. */
    readonly publishTime: 'given' | 'broker' | 'none';
  };
  /** Deletes the queue (topic, stream) and closes the probe; the contract closes the proxy first. */
  drop(): Promise<void>;
}

export interface BrokerSourceTarget {
  /** Shown in the describe block, e.g. `RabbitMQ`. */
  readonly label: string;
  /** The broker: where it is missing, the suite is skipped with the reason in its title. */
  readonly service: ServiceLookup;
  /** A fresh queue on the broker at `url` and its harness; called before every case. */
  open(url: string): Promise<BrokerSourceHarness>;
  /**
   * The shared broker ingest for the inbox-side rules (broker-source-rules.ts), which every
   * broker must hold.
   */
  readonly ingest: IngestFactory;
  /** The broker has integer headers (AMQP): the probe can publish 64-bit ones. */
  readonly int64Headers?: boolean;
}

type Answer = (
  delivery: SourceDelivery,
  seen: number,
) => DeliveryVerdict | Promise<DeliveryVerdict>;

interface Recorder {
  readonly handler: DeliveryHandler;
  /** Every delivery handed over, in order. */
  readonly deliveries: SourceDelivery[];
  /** Handler calls that resolved, in order. */
  readonly settled: SourceDelivery[];
  readonly maxInHand: () => number;
}

const ACK: DeliveryVerdict = { settle: 'ack', outcome: 'stored' };

function recorder(answer: Answer = () => ACK): Recorder {
  const deliveries: SourceDelivery[] = [];
  const settled: SourceDelivery[] = [];
  const seen = new Map<string, number>();
  let inHand = 0;
  let max = 0;
  return {
    deliveries,
    settled,
    maxInHand: () => max,
    handler: {
      async handle(delivery) {
        deliveries.push(delivery);
        inHand += 1;
        max = Math.max(max, inHand);
        const body = textOf(delivery);
        const count = (seen.get(body) ?? 0) + 1;
        seen.set(body, count);
        try {
          return await answer(delivery, count);
        } finally {
          inHand -= 1;
          settled.push(delivery);
        }
      },
    },
  };
}

function textOf(delivery: SourceDelivery): string {
  return Buffer.from(delivery.body).toString('latin1');
}

/**
 * Expects the broker to hold nothing more for the source. A broker applies settlements on its own
 * schedule (JetStream queues acks to the consumer's loop, behind the connection's flush), so a
 * count read at once can lag an ack already sent; it is read again for up to 5 s. An ack that was
 * never sent keeps the message held far longer (the ack wait, or for good).
 */
async function expectNothingOutstanding(probe: BrokerProbe): Promise<void> {
  await eventually(async () => (await probe.outstanding()) === 0, 'nothing held', 5_000).catch(
    () => undefined,
  );
  expect(await probe.outstanding()).toBe(0);
}

async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A promise a test resolves later: holds a handler call open. */
function gate<T>(): { readonly promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

export function brokerSourceContract(target: BrokerSourceTarget): void {
  const skip = serviceSkip(target.service);
  describe.skipIf(Boolean(skip))(skipTitle(`broker source contract: ${target.label}`, skip), () => {
    let harness: BrokerSourceHarness;
    const consumers: SourceConsumer[] = [];

    beforeEach(async () => {
      harness = await target.open(serviceUrl(target.service));
    });
    afterEach(async () => {
      await Promise.all(consumers.splice(0).map((c) => c.close()));
      await harness?.proxy.close();
      await harness?.drop();
    });

    const consume = async (handler: DeliveryHandler, logger?: Logger) => {
      const consumer = harness.consumer(handler, logger);
      consumers.push(consumer);
      await consumer.start();
      return consumer;
    };

    it('hands over the body byte for byte, the headers as text and the broker attributes as fallbacks', async () => {
      const { handler, deliveries } = recorder();
      const consumer = await consume(handler);
      expect(consumer.healthComponent).toBe(harness.healthComponent);
      const body = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0xff, 0xfe, 0x7d]);
      const publishTime = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      await harness.probe.publish({
        body,
        headers: { 'x-tenant': 't1', 'X-Correlation-Id': 'corr-header' },
        id: 'msg-1',
        correlationId: 'corr-property',
        publishTime,
      });
      const [delivery] = await eventually(() => deliveries.length >= 1 && deliveries, 'a delivery');
      expect(Buffer.from(delivery!.body).equals(Buffer.from(body))).toBe(true);
      expect(delivery!.headers).toMatchObject({
        'x-tenant': 't1',
        'X-Correlation-Id': 'corr-header',
      });
      const { fallbacks } = harness;
      if (fallbacks.idempotencyKey) expect(delivery!.fallbacks.idempotencyKey).toBe('msg-1');
      if (fallbacks.correlationId) expect(delivery!.fallbacks.correlationId).toBe('corr-property');
      if (fallbacks.publishTime === 'given')
        expect(delivery!.fallbacks.publishTime?.getTime()).toBe(publishTime.getTime());
      if (fallbacks.publishTime === 'broker')
        expect(Math.abs(Date.now() - delivery!.fallbacks.publishTime!.getTime())).toBeLessThan(
          60_000,
        );
    });

    it('acknowledges every ack verdict (stored, duplicate, dead, filtered) and leaves nothing behind', async () => {
      const outcomes = ['stored', 'duplicate', 'dead', 'filtered'] as const;
      const { handler, settled } = recorder((delivery) => {
        const index = Number(textOf(delivery).replace(/\D/g, ''));
        return { settle: 'ack', outcome: outcomes[index % outcomes.length]! };
      });
      const consumer = await consume(handler);
      for (let i = 0; i < 8; i++) await harness.probe.publish({ body: `{"n":${i}}` });
      await eventually(() => settled.length >= 8, '8 settled deliveries');
      await consumer.close();
      await expectNothingOutstanding(harness.probe);
      expect(settled).toHaveLength(8);
    });

    it('delivers a retry again, and acknowledges it once the handler says so', async () => {
      const { handler, settled } = recorder((_delivery, seen) =>
        seen < 3 ? { settle: 'retry', reason: 'the store is down' } : ACK,
      );
      const consumer = await consume(handler);
      await harness.probe.publish({ body: '{"n":1}' });
      await eventually(() => settled.length >= 3, 'three attempts');
      await consumer.close();
      expect(settled.map(textOf)).toEqual(['{"n":1}', '{"n":1}', '{"n":1}']);
      await expectNothingOutstanding(harness.probe);
    });

    it('delivers again a message whose handler threw', async () => {
      const { handler, settled } = recorder((_delivery, seen) => {
        if (seen === 1) throw new Error('handler bug');
        return ACK;
      });
      const consumer = await consume(handler);
      await harness.probe.publish({ body: '{"n":1}' });
      await eventually(() => settled.length >= 2, 'a second attempt');
      await consumer.close();
      await expectNothingOutstanding(harness.probe);
    });

    it('acknowledges nothing before the handler resolves; an ack after the connection went is dropped and the message comes again', async () => {
      const held = gate<DeliveryVerdict>();
      const { handler, deliveries, settled } = recorder((_delivery, seen) =>
        seen === 1 ? held.promise : ACK,
      );
      const consumer = await consume(handler);
      await harness.probe.publish({ body: '{"held":1}' });
      await eventually(() => deliveries.length >= 1, 'the delivery');
      // Cut off while the handler holds it: the broker must still have it.
      harness.proxy.refuse();
      harness.proxy.cut();
      await eventually(
        async () => (await harness.probe.outstanding()) === 1,
        'the message back with the broker',
      );
      await eventually(() => !consumer.isHealthy(), 'readiness down');
      held.open(ACK);
      await eventually(() => settled.length >= 1, 'the first handler call resolved');
      expect(await harness.probe.outstanding()).toBe(1);
      harness.proxy.restore();
      await eventually(() => settled.length >= 2, 'the message delivered again', 20_000);
      expect(settled.map(textOf)).toEqual(['{"held":1}', '{"held":1}']);
      await eventually(() => consumer.isHealthy(), 'readiness up');
      await consumer.close();
      await expectNothingOutstanding(harness.probe);
    });

    it(`never has more deliveries in hand than the broker allows`, async () => {
      const { handler, settled, maxInHand } = recorder(async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return ACK;
      });
      const consumer = await consume(handler);
      const count = Math.max(6, harness.maxInFlight * 3);
      for (let i = 0; i < count; i++) await harness.probe.publish({ body: `{"n":${i}}` });
      await eventually(() => settled.length >= count, `${count} settled deliveries`);
      expect(maxInHand()).toBeLessThanOrEqual(harness.maxInFlight);
      if (harness.maxInFlight > 1) expect(maxInHand()).toBeGreaterThan(1);
      await consumer.close();
      await expectNothingOutstanding(harness.probe);
    });

    it('reports readiness by its connection and consumes again after an outage, losing nothing', async () => {
      const { handler, settled } = recorder();
      const consumer = await consume(handler);
      expect(consumer.isHealthy()).toBe(true);
      await harness.probe.publish({ body: '{"before":1}' });
      await eventually(() => settled.length >= 1, 'the first message');
      harness.proxy.refuse();
      harness.proxy.cut();
      await eventually(() => !consumer.isHealthy(), 'readiness down');
      for (let i = 0; i < 5; i++) await harness.probe.publish({ body: `{"during":${i}}` });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(consumer.isHealthy()).toBe(false);
      harness.proxy.restore();
      await eventually(() => consumer.isHealthy(), 'readiness up again', 20_000);
      await eventually(
        () => settled.length >= 6,
        'the messages published during the outage',
        20_000,
      );
      await consumer.close();
      expect(new Set(settled.map(textOf)).size).toBe(6);
      await expectNothingOutstanding(harness.probe);
    });

    it('lets deliveries in hand settle on close, and closes once however often it is called', async () => {
      const held = gate<DeliveryVerdict>();
      const { handler, deliveries } = recorder(() => held.promise);
      const consumer = await consume(handler);
      await harness.probe.publish({ body: '{"n":1}' });
      await eventually(() => deliveries.length >= 1, 'the delivery');
      const closing = consumer.close();
      setTimeout(() => held.open(ACK), 200);
      await Promise.all([closing, consumer.close()]);
      expect(consumer.isHealthy()).toBe(false);
      await expectNothingOutstanding(harness.probe);
    });

    it('delivers a burst once each when every verdict is ack', async () => {
      const { handler, settled } = recorder();
      const consumer = await consume(handler);
      const count = 200;
      await Promise.all(
        Array.from({ length: count }, (_, i) => harness.probe.publish({ body: `{"n":${i}}` })),
      );
      await eventually(() => settled.length >= count, `${count} settled deliveries`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await consumer.close();
      expect(settled).toHaveLength(count);
      expect(new Set(settled.map(textOf)).size).toBe(count);
      await expectNothingOutstanding(harness.probe);
    });

    brokerSourceRules(
      target.ingest,
      { harness: () => harness, consume, eventually },
      { int64Headers: target.int64Headers === true },
    );
  });
}
