import { createNatsKit, OtlpSpanKind, type NatsKit } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { outboxRows } from './e2e-rows.js';
import { hex, tracedSuite } from './traced-service.js';

const SUITE = 'app: traces through a NATS destination';
const { ready, pgUrl, url } = await e2eServices(SUITE, 'nats');

/**
 * An application's row with its own `traceparent` published to NATS JetStream with tracing on
 * (OTLP/JSON this time): the publish span is the row's child, and the stored message carries the
 * span's context as its one `traceparent` header, not the row's and not the destination's static
 * one.
 */
describe.skipIf(!ready)(SUITE, () => {
  let kit: NatsKit;
  let stream: string;

  const traced = tracedSuite({
    pgUrl,
    database: 'qb_traces_nats',
    protocol: 'http/json',
    async open(scratch) {
      kit = await scratch.open(createNatsKit(url, 'qb-traces'), (opened) => opened.cleanup());
      stream = await kit.stream(kit.name('TRACED'), [kit.subject('traced.>')]);
      return `
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
`;
    },
  });
  const { insert, sent } = outboxRows(() => traced.db);

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
    const publish = await traced.span((s) => s.name === 'publish traced' && s.traceId === traceId);
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
    expect(traced.receiver.exports.every((e) => e.contentType === 'application/json')).toBe(true);
  });
});
