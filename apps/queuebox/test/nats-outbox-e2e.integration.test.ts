import { createNatsKit, type NatsKit } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { ORDER_KEYS, outboxE2E, REFERENCE_TEXT, ROWS_PER_KEY } from './outbox-e2e-harness.js';
import { eventually } from './service.js';

const SUITE = 'app: outbox to NATS JetStream end to end';
const { ready, pgUrl, url, target } = await e2eServices(SUITE, 'nats');

/**
 * The outbox through the real service to the real JetStream: a row reaches its stream with every
 * spec header; a subject no stream takes and a PubAck that never comes are retried and then dead;
 * the rows of one key arrive in order with 8 publishes in flight and failures in between; an
 * admin replay of a sent row inside the duplicate window is delivered again; a webhook relayed to
 * NATS carries `x-inbox-id` and `x-source`.
 */
describe.skipIf(!ready)('outbox delivery to NATS JetStream', () => {
  let kit: NatsKit;
  let events: string;
  let ordered: string;
  let slow: string;

  const {
    insert,
    row,
    expectDead,
    sendReferenceRow,
    expectDeadWhileLate,
    replay,
    postHook,
    seedOrdered,
    orderedSent,
    expectKeyOrder,
  } = outboxE2E({
    pgUrl,
    database: 'qb_nats_outbox',
    target,
    async open(toServer) {
      kit = createNatsKit(url, 'qb-outbox-e2e');
      events = await kit.stream(kit.name('EVENTS'), [kit.subject('events.>')]);
      ordered = await kit.stream(kit.name('ORDERED'), [kit.subject('ok.>')]);
      slow = await kit.stream(kit.name('SLOW'), [kit.subject('slow.>')]);
      return {
        destinations: `
  events:
    type: nats
    servers: ${url}
    subject: "${kit.subject('events')}.{{ topic }}"
    headers:
      X-Static: static
  nowhere:
    type: nats
    servers: ${url}
    subject: ${kit.subject('nowhere')}
  ordered:
    type: nats
    servers: ${url}
    subject: "{{ payload.subject }}"
  slow:
    type: nats
    servers: nats://${toServer.host}:${toServer.port}
    subject: ${kit.subject('slow.rows')}
    timeoutMs: 1000`,
        routes: `
  - topicPattern: "order.*"
    destination: events
  - topicPattern: "lost.*"
    destination: nowhere
  - topicPattern: "seq.*"
    destination: ordered`,
        cleanup: () => kit.cleanup(),
      };
    },
  });

  const storedWith = async (stream: string, id: string) =>
    (await kit.messages(stream)).filter((m) => m.headers['x-message-id']?.[0] === id);

  it('delivers a row to its stream with every spec header and the stored text', async () => {
    const id = await sendReferenceRow();
    const [received] = await storedWith(events, id);
    expect(received!.text).toBe(REFERENCE_TEXT);
    expect(received!.subject).toBe(`${kit.subject('events')}.order.created`);
    expect(received!.headers).toEqual({
      'X-Static': ['row-wins'],
      'X-Correlation-Id': ['corr-1'],
      'X-Tenant': ['t1'],
      'x-message-id': [id],
      'x-topic': ['order.created'],
      'x-attempt': ['0'],
      'x-message-key': ['order-42'],
      'Nats-Msg-Id': [id],
    });
  });

  it('retries a row no stream takes and marks it dead with the reason', async () => {
    await expectDead(
      'lost.parcel',
      { n: 1 },
      { attempts: 2 },
      () => 'Publish failed: no JetStream stream takes this subject (503 no responders)',
    );
  });

  it('retries a row whose PubAck does not come within timeoutMs and marks it dead', async () => {
    await expectDeadWhileLate(
      3_000,
      { attempts: 2, timeoutMs: 20_000 },
      () => 'Publish not acknowledged: no PubAck within 1000 ms',
    );
    // Each attempt reached the stream; the message id made the second one a duplicate.
    await eventually(async () => (await kit.messages(slow)).length === 2);
  }, 40_000);

  it('keeps each key in order with 8 publishes in flight and failing publishes in between', async () => {
    // Two rows of each key meet no stream until the stream takes `late.>` below.
    await seedOrdered((key, seq, late) => ({
      subject: kit.subject(`${late ? 'late' : 'ok'}.${key}`),
      key,
      seq,
    }));
    const manager = await kit.manager();
    const info = await manager.streams.info(ordered);
    await manager.streams.update(ordered, {
      ...info.config,
      subjects: [kit.subject('ok.>'), kit.subject('late.>')],
    });
    await orderedSent(30_000);
    const received = await kit.messages(ordered);
    expect(received).toHaveLength(ORDER_KEYS.length * ROWS_PER_KEY);
    expectKeyOrder(
      received.map((m) => ({
        ...(JSON.parse(m.text) as { key: string; seq: number }),
        attempt: Number(m.headers['x-attempt']?.[0]),
      })),
    );
  }, 60_000);

  it('delivers a sent row again when an admin replays it inside the duplicate window', async () => {
    const [inserted] = await insert('order.replayed', { n: 1 });
    const id = inserted!.id;
    await eventually(async () => (await row(id)).state === 'sent');
    expect(await storedWith(events, id)).toHaveLength(1);
    await replay(id);
    await eventually(async () => (await storedWith(events, id)).length === 2);
    await eventually(async () => (await row(id)).state === 'sent');
    const [first, again] = await storedWith(events, id);
    expect(again!.text).toBe(first!.text);
    expect(again!.headers['Nats-Msg-Id']![0]).not.toBe(id);
  });

  it('relays a webhook to NATS with x-inbox-id and x-source, x-topic being QueueBox’s', async () => {
    const messageId = await postHook(
      { id: 'evt-1', type: 'hook.received' },
      { 'x-topic': 'forged', 'x-tenant': 't9' },
    );
    const received = await eventually(async () =>
      (await kit.messages(events)).find((m) => m.headers['x-inbox-id']?.[0] === messageId),
    );
    expect(received.headers).toMatchObject({
      'x-source': ['hooks'],
      'x-idempotency-key': ['evt-1'],
      'x-topic': ['hook.received'],
      'x-attempt': ['0'],
      'x-tenant': ['t9'],
    });
    expect(received.subject).toBe(`${kit.subject('events')}.hook.received`);
    expect(JSON.parse(received.text)).toEqual({ id: 'evt-1', type: 'hook.received' });
  });
});
