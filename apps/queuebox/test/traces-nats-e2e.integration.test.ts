import { randomBytes } from 'node:crypto';
import {
  createFreshDatabase,
  createNatsKit,
  OtlpSpanKind,
  requireService,
  startOtlpReceiver,
  type FreshDatabase,
  type NatsKit,
  type OtlpReceiver,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxRows } from './e2e-rows.js';
import { eventually, startTestService } from './service.js';

const SUITE = 'app: traces through a NATS destination';
const pg = await requireService('postgres', SUITE);
const nats = await requireService('nats', SUITE);
const ready = pg.available && nats.available;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * An application's row with its own `traceparent` published to NATS JetStream with tracing on
 * (OTLP/JSON this time): the publish span is the row's child, and the stored message carries the
 * span's context as its one `traceparent` header, not the row's and not the destination's static
 * one.
 */
describe.skipIf(!ready)(SUITE, () => {
  let db: FreshDatabase;
  let kit: NatsKit;
  let receiver: OtlpReceiver;
  let service: Awaited<ReturnType<typeof startTestService>>;
  let stream: string;
  const saved = { ...process.env };
  const { insert, sent } = outboxRows(() => db);

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '', 'qb_traces_nats');
    const url = nats.available ? nats.url : '';
    kit = createNatsKit(url, 'qb-traces');
    stream = await kit.stream(kit.name('TRACED'), [kit.subject('traced.>')]);
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
destinations:
  traced:
    type: nats
    servers: ${url}
    subject: "${kit.subject('traced')}.{{ topic }}"
    headers:
      traceparent: 00-${'1'.repeat(32)}-${'2'.repeat(16)}-01
routes:
  - topicPattern: "**"
    destination: traced
`,
      {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    );
  });
  afterAll(async () => {
    await service?.stop();
    process.env = saved;
    await kit?.cleanup();
    await receiver?.close();
    await db?.drop();
  });

  it('sends the publish span context as the NATS header', async () => {
    const traceId = hex(16);
    const parent = hex(8);
    const [row] = await insert(
      'order.traced',
      { n: 1 },
      {
        headers: { TraceParent: `00-${traceId}-${parent}-01`, tracestate: 'app=7' },
      },
    );
    await sent(row!.id);
    const publish = await eventually(
      () => receiver.spans().find((s) => s.name === 'publish traced' && s.traceId === traceId),
      20_000,
    );
    expect(publish.kind).toBe(OtlpSpanKind.producer);
    expect(publish.parentSpanId).toBe(parent);
    expect(publish.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': 'traced',
      'messaging.message.id': row!.id,
      'queuebox.outcome': 'sent',
    });
    const [message] = (await kit.messages(stream)).filter(
      (m) => m.headers['x-message-id']?.[0] === row!.id,
    );
    const trace = Object.entries(message!.headers).filter(([name]) =>
      ['traceparent', 'tracestate'].includes(name.toLowerCase()),
    );
    expect(trace).toEqual([
      ['traceparent', [`00-${traceId}-${publish.spanId}-01`]],
      ['tracestate', ['app=7']],
    ]);
    expect(receiver.exports.every((e) => e.contentType === 'application/json')).toBe(true);
  });
});
