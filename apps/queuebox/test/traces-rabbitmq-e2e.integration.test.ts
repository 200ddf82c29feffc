import {
  createRabbitKit,
  OtlpSpanKind,
  type QueueCollector,
  type RabbitKit,
} from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { hex, tracedSuite, type TracedService } from './traced-service.js';
import { FAST_RELAY } from './yaml-blocks.js';

const SUITE = 'app: traces through a RabbitMQ source and destination';
const { ready, pgUrl, url } = await e2eServices(SUITE, 'rabbitmq');

/**
 * The broker side of tracing, on the real service (in this process) and a real broker: an AMQP
 * message's `traceparent` is the parent of the `receive` span (kind consumer), the relay's
 * forward follows, and the publish to a RabbitMQ destination carries the publish span's context
 * as an AMQP header, once, whatever the source message carried.
 */
describe.skipIf(!ready)(SUITE, () => {
  let kit: RabbitKit;
  let incoming: string;
  let delivered: QueueCollector;

  const traced = tracedSuite({
    pgUrl,
    database: 'qb_traces_rabbit',
    protocol: 'http/protobuf',
    async open(scratch) {
      kit = await scratch.open(createRabbitKit(url, 'qb-traces'), (opened) => opened.cleanup());
      incoming = await kit.queue(kit.name('incoming'));
      const exchange = await kit.exchange(kit.name('out'));
      delivered = await scratch.open(
        kit.collect(await kit.queue(kit.name('out.q'), { exchange, patterns: ['#'] })),
        (collector) => collector.stop(),
      );
      return `
database:
  migrate: true
outbox:
  pollIntervalMs: 50
${FAST_RELAY}
destinations:
  out:
    type: rabbitmq
    url: ${url}
    exchange: ${exchange}
routes:
  - topicPattern: "**"
    destination: out
sources:
  amqp:
    type: rabbitmq
    queueName: ${incoming}
    connectionUrl: ${url}
    eventTypePath: $.type
`;
    },
  });
  const span: TracedService['span'] = (find) => traced.span(find);

  it('follows an AMQP message from the source queue to the destination exchange', async () => {
    const traceId = hex(16);
    const producer = hex(8);
    await kit.sendToQueue(incoming, JSON.stringify({ type: 'amqp.traced', n: 1 }), {
      headers: { traceparent: `00-${traceId}-${producer}-01`, tracestate: 'p=1' },
    });
    const [message] = await delivered.waitFor(1, 20_000);
    const receive = await span((s) => s.name === 'receive amqp' && s.traceId === traceId);
    const forward = await span((s) => s.name === 'forward amqp' && s.traceId === traceId);
    const publish = await span((s) => s.name === 'publish out' && s.traceId === traceId);

    expect(receive.kind).toBe(OtlpSpanKind.consumer);
    expect(receive.parentSpanId).toBe(producer);
    expect(receive.attributes).toMatchObject({
      'messaging.system': 'rabbitmq',
      'messaging.destination.name': 'amqp',
      'queuebox.dedup': 'new',
      'queuebox.outcome': 'stored',
    });
    expect(forward.parentSpanId).toBe(receive.spanId);
    expect(publish.parentSpanId).toBe(forward.spanId);
    expect(publish.attributes).toMatchObject({
      'messaging.system': 'rabbitmq',
      'messaging.destination.name': 'out',
      'messaging.message.id': message!.properties.messageId,
      'queuebox.outcome': 'sent',
    });
    const trace = Object.entries(message!.headers).filter(([name]) =>
      ['traceparent', 'tracestate'].includes(name.toLowerCase()),
    );
    expect(trace).toEqual([
      ['traceparent', `00-${traceId}-${publish.spanId}-01`],
      ['tracestate', 'p=1'],
    ]);
  });
});
