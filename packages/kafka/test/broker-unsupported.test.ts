/**
 * A broker QueueBox's Kafka client cannot speak to is refused at once with a message naming it,
 * rather than retried until every timeout ran out. No such Kafka release exists yet, so the
 * broker here is a TCP server that answers ApiVersions as a broker that dropped every Produce
 * and Fetch version kafkajs knows would; it answers nothing else, as kafkajs would then hang.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@queuebox/core';
import { kafkaSource } from '@queuebox/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createKafkaPublisher, KafkaSourceConsumer } from '../src/index.js';
import { destinations, kafkaDestination, publishRequest } from './publish-requests.js';

const SERVED: [number, number, number][] = [
  [0, 8, 15],
  [1, 12, 20],
  [3, 0, 13],
  [18, 0, 5],
];

function apiVersionsAnswer(correlationId: number): Buffer {
  const body = Buffer.alloc(10 + SERVED.length * 6);
  body.writeInt32BE(correlationId, 0);
  body.writeInt16BE(0, 4);
  body.writeInt32BE(SERVED.length, 6);
  SERVED.forEach(([key, min, max], i) => {
    body.writeInt16BE(key, 10 + i * 6);
    body.writeInt16BE(min, 12 + i * 6);
    body.writeInt16BE(max, 14 + i * 6);
  });
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length, 0);
  return Buffer.concat([size, body]);
}

let server: Server | undefined;

async function tooNewBroker(): Promise<string> {
  server = createServer((socket) => {
    socket.on('data', (chunk) => {
      // Only an ApiVersions request (key 18) is answered.
      if (chunk.length >= 12 && chunk.readInt16BE(4) === 18) {
        socket.write(apiVersionsAnswer(chunk.readInt32BE(8)));
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

const EXPECTED =
  /^The Kafka broker at 127\.0\.0\.1:\d+ is Kafka 4\.0 or later \(Produce v8-v15, Fetch v12-v20\), and QueueBox's Kafka client \(kafkajs 2\.2\.4\) cannot speak to it: the broker serves Produce from v8 only/;

describe('a Kafka broker QueueBox cannot speak to', () => {
  it('fails a publish at once with the reason, long before its timeout', async () => {
    const brokers = await tooNewBroker();
    const publisher = createKafkaPublisher(
      destinations({
        k: kafkaDestination({ bootstrapServers: brokers, topic: 't', timeoutMs: 30_000 }),
      }),
      { logger: silentLogger },
    );
    const started = performance.now();
    const outcome = await publisher.publish(publishRequest('k', 't', null));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok)
      expect(outcome.error.message.replace(/^Publish failed: /, '')).toMatch(EXPECTED);
    await publisher.close();
  });

  it('keeps a source down and says why', async () => {
    const brokers = await tooNewBroker();
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      warn: (line: string) => void warnings.push(line),
      error() {},
      child() {
        return logger;
      },
    };
    const consumer = new KafkaSourceConsumer(
      'newer',
      kafkaSource({ bootstrapServers: brokers, topics: ['t'], groupId: 'g' }),
      {
        handler: { handle: () => Promise.resolve({ settle: 'ack', outcome: 'stored' }) },
        logger,
      },
    );
    await consumer.start();
    expect(consumer.isHealthy()).toBe(false);
    expect(warnings[0]).toMatch(
      /^Source 'newer' cannot consume, and tries again in the background: The Kafka broker at/,
    );
    expect(warnings[0]!.replace(/^[^:]+: /, '')).toMatch(EXPECTED);
    await consumer.close();
  });
});
