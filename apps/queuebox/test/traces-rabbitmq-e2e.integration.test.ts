import { randomBytes } from 'node:crypto';
import {
  createFreshDatabase,
  createRabbitKit,
  OtlpSpanKind,
  requireService,
  startOtlpReceiver,
  type FreshDatabase,
  type OtlpReceiver,
  type OtlpSpan,
  type QueueCollector,
  type RabbitKit,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService } from './service.js';

const SUITE = 'app: traces through a RabbitMQ source and destination';
const pg = await requireService('postgres', SUITE);
const rabbit = await requireService('rabbitmq', SUITE);
const ready = pg.available && rabbit.available;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * The broker side of tracing, on the real service (in this process) and a real broker: an AMQP
 * message's `traceparent` is the parent of the `receive` span (kind consumer), the relay's
 * forward follows, and the publish to a RabbitMQ destination carries the publish span's context
 * as an AMQP header, once, whatever the source message carried.
 */
describe.skipIf(!ready)(SUITE, () => {
  let db: FreshDatabase;
  let kit: RabbitKit;
  let receiver: OtlpReceiver;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let incoming: string;
  let delivered: QueueCollector;
  const saved = { ...process.env };

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '', 'qb_traces_rabbit');
    const url = rabbit.available ? rabbit.url : '';
    kit = await createRabbitKit(url, 'qb-traces');
    incoming = await kit.queue(kit.name('incoming'));
    const exchange = await kit.exchange(kit.name('out'));
    delivered = await kit.collect(
      await kit.queue(kit.name('out.q'), { exchange, patterns: ['#'] }),
    );
    receiver = await startOtlpReceiver();
    // The exporter reads its endpoint from the process environment, as the SDK does.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    service = await startTestService(
      db,
      `
database:
  migrate: true
outbox:
  pollIntervalMs: 50
inbox:
  relay:
    pollIntervalMs: 50
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
`,
      {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    );
  });
  afterAll(async () => {
    await service?.stop();
    process.env = saved;
    await delivered?.stop();
    await kit?.cleanup();
    await receiver?.close();
    await db?.drop();
  });

  const span = (find: (s: OtlpSpan) => boolean) =>
    eventually(() => receiver.spans().find(find), 20_000);

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
