import {
  brokerAddress,
  createKafkaKit,
  type ConsumedRecord,
  type KafkaKit,
} from '@queuebox/testing';
import { skipTitle } from '@queuebox/testing/contracts';
import { describe, expect, it } from 'vitest';
import { kafkaSuite, kafkaThrough } from './kafka-e2e.js';
import { ORDER_KEYS, outboxE2E, REFERENCE_TEXT, ROWS_PER_KEY } from './outbox-e2e-harness.js';
import { eventually } from './service.js';

const SUITE = 'app outbox end to end';
const { ready, skip, pgUrl, brokers } = await kafkaSuite(SUITE, 8);

/** Kafka's default `max.message.bytes`, and the small one of the topics that refuse records. */
const DEFAULT_MAX_MESSAGE_BYTES = '1048588';
const SMALL_MAX_MESSAGE_BYTES = '16384';
const TOO_LARGE = 'x'.repeat(32_768);

const header = (record: ConsumedRecord, name: string) =>
  record.headers.find(([n]) => n === name)?.[1];
const withId = (records: readonly ConsumedRecord[], id: string) =>
  records.filter((record) => header(record, 'x-message-id') === id);

/**
 * The outbox through the real service to a real broker: a row becomes a record of its topic with
 * its key, its stored text and every spec header as UTF-8 strings; the record key comes from the
 * route, else the destination's keyTemplate, and a blank one sends none; a topic Kafka cannot take,
 * a record the broker refuses and an ack that never comes are retried and then dead; the rows of
 * one key arrive in order, in one partition, with 8 publishes in flight and refusals in between;
 * an admin replay of a sent row is delivered again (Kafka keeps no duplicate window); a webhook
 * relayed to Kafka carries `x-inbox-id` and `x-source`, keyed by its aggregate id.
 */
describe.skipIf(!ready)(skipTitle('outbox delivery to Kafka', skip), () => {
  let kit: KafkaKit;
  let events: { records: ConsumedRecord[] };
  let big: { records: ConsumedRecord[] };
  let ordered: { records: ConsumedRecord[] };
  let orderedTopic: string;
  let slow: { records: ConsumedRecord[] };

  // Only the slow destination reaches the broker through the proxy.
  const {
    insert,
    sent,
    expectDead,
    sendReferenceRow,
    expectDeadWhileLate,
    replay,
    postHook,
    seedOrdered,
    orderedSent,
    expectKeyOrder,
  } = outboxE2E(
    {
      pgUrl,
      database: 'qb_kafka_outbox',
      target: ready ? brokerAddress(brokers) : { host: '127.0.0.1', port: 9092 },
      // The slow destination's producer connects with the warm row.
      warmMs: 30_000,
      hooks: '    aggregateIdPath: $.account',
      async open(toBroker) {
        kit = await createKafkaKit(brokers, 'qb-outbox-e2e');
        const eventsTopic = await kit.topic(kit.name('events'));
        // Records over 16 kB are refused (MESSAGE_TOO_LARGE) until the test raises the limit.
        const bigTopic = await kit.topic(kit.name('big'), 1, {
          'max.message.bytes': SMALL_MAX_MESSAGE_BYTES,
        });
        orderedTopic = await kit.topic(kit.name('ordered'), 4, {
          'max.message.bytes': SMALL_MAX_MESSAGE_BYTES,
        });
        const slowTopic = await kit.topic(kit.name('slow'));
        events = kit.collect(eventsTopic);
        big = kit.collect(bigTopic);
        ordered = kit.collect(orderedTopic);
        slow = kit.collect(slowTopic);
        return {
          destinations: `
  events:
    type: kafka
    bootstrapServers: ${brokers}
    topic: ${eventsTopic}
    headers:
      X-Static: static
  by-topic:
    type: kafka
    bootstrapServers: ${brokers}
    topic: ${eventsTopic}
    keyTemplate: "{{ topic }}/{{ key }}"
  nowhere:
    type: kafka
    bootstrapServers: ${brokers}
    topicFrom: key
  big:
    type: kafka
    bootstrapServers: ${brokers}
    topic: ${bigTopic}
  ordered:
    type: kafka
    bootstrapServers: ${brokers}
    topic: ${orderedTopic}
  slow:
    type: kafka
    bootstrapServers: ${brokers}
    topic: ${slowTopic}
    timeoutMs: 2000`,
          routes: `
  - topicPattern: "order.*"
    destination: events
  - topicPattern: "routed.*"
    destination: events
    routingKeyTemplate: "route-{{ payload.account }}"
  - topicPattern: "tk.*"
    destination: by-topic
  - topicPattern: "lost.*"
    destination: nowhere
  - topicPattern: "big.*"
    destination: big
  - topicPattern: "seq.*"
    destination: ordered`,
          providers: kafkaThrough({ destinations: { slow: toBroker } }),
          cleanup: () => kit.cleanup(),
        };
      },
    },
    90_000,
  );

  it('delivers a row as a record with its key, the stored text and every spec header', async () => {
    const id = await sendReferenceRow();
    // The first read of the topic waits for the collector's consumer group to form.
    const [received] = await eventually(() => {
      const found = withId(events.records, id);
      return found.length > 0 && found;
    }, 30_000);
    expect(received!.value).toBe(REFERENCE_TEXT);
    expect(received!.key).toBe('order-42');
    // Static and row headers (the row wins), then the three standard ones appended, no other.
    expect(received!.headers).toHaveLength(6);
    expect(Object.fromEntries(received!.headers)).toEqual({
      'X-Static': 'row-wins',
      'X-Correlation-Id': 'corr-1',
      'X-Tenant': 't1',
      'x-message-id': id,
      'x-topic': 'order.created',
      'x-attempt': '0',
    });
    expect(received!.headers.slice(-3)).toEqual([
      ['x-message-id', id],
      ['x-topic', 'order.created'],
      ['x-attempt', '0'],
    ]);
  });

  it('keys a record by the route, else by the keyTemplate, and sends a row without a key keyless', async () => {
    const [routed] = await insert('routed.a', { account: 'acct-1' }, { key: 'row-key-1' });
    const [templated] = await insert('tk.b', { n: 2 }, { key: 'row-key-2' });
    const [keyless] = await insert('order.keyless', { n: 3 });
    const received = async (id: string) => {
      await sent(id);
      return eventually(() => withId(events.records, id)[0]);
    };
    expect((await received(routed!.id)).key).toBe('route-acct-1');
    expect((await received(templated!.id)).key).toBe('tk.b/row-key-2');
    expect((await received(keyless!.id)).key).toBeNull();
  });

  it('retries a row whose topic Kafka cannot take and marks it dead with the reason', async () => {
    await expectDead(
      'lost.parcel',
      { n: 1 },
      { attempts: 2, key: 'lost parcel' },
      () =>
        "Publish failed: 'lost parcel' is not a Kafka topic name (1 to 249 of a-z, A-Z, 0-9, '.', '_' and '-')",
    );
  });

  it('retries a record the broker refuses as too large and marks it dead', async () => {
    const id = await expectDead(
      'big.row',
      { pad: TOO_LARGE },
      { attempts: 2, timeoutMs: 30_000 },
      () =>
        'Publish failed: The request included a message larger than the max message size the server will accept (MESSAGE_TOO_LARGE)',
    );
    expect(withId(big.records, id)).toEqual([]);
  });

  it('retries a row whose ack does not come within timeoutMs and marks it dead', async () => {
    const id = await expectDeadWhileLate(
      5_000,
      { attempts: 2, timeoutMs: 30_000 },
      () => 'Publish not acknowledged: Kafka sent no ack within 2000 ms',
    );
    // Only the ack was held: the first attempt's record is on the topic all the same (at least
    // once; a consumer deduplicates on x-message-id).
    const first = await eventually(() => withId(slow.records, id)[0], 20_000);
    expect(header(first, 'x-attempt')).toBe('0');
  }, 60_000);

  it('keeps each key in order and in one partition with 8 publishes in flight and refused records in between', async () => {
    // Two rows of each key are too large for the topic until its limit is raised below.
    await seedOrdered(
      (key, seq, tooLarge) => ({ key, seq, pad: tooLarge ? TOO_LARGE : '' }),
      30_000,
    );
    await kit.setTopicConfig(orderedTopic, { 'max.message.bytes': DEFAULT_MAX_MESSAGE_BYTES });
    await orderedSent(45_000);
    // At least once: a request that mixed a refused record with records of other partitions
    // failed as a whole although those were written, so a row may be on the topic twice. The
    // first record of each row is the one whose order counts.
    const firstOfEachRow = () => {
      const firsts = new Map<string, ConsumedRecord>();
      for (const record of ordered.records) {
        const id = header(record, 'x-message-id') ?? '';
        if (!firsts.has(id)) firsts.set(id, record);
      }
      return [...firsts.values()];
    };
    const received = await eventually(() => {
      const firsts = firstOfEachRow();
      return firsts.length >= ORDER_KEYS.length * ROWS_PER_KEY && firsts;
    });
    expect(received).toHaveLength(ORDER_KEYS.length * ROWS_PER_KEY);
    expectKeyOrder(
      received.map((record) => ({
        key: record.key,
        seq: (JSON.parse(record.value) as { seq: number }).seq,
        attempt: Number(header(record, 'x-attempt')),
      })),
    );
    for (const key of ORDER_KEYS) {
      const partitions = ordered.records.filter((record) => record.key === key);
      expect(new Set(partitions.map((record) => record.partition)).size, key).toBe(1);
    }
  }, 90_000);

  it('delivers a sent row again when an admin replays it, Kafka keeping no duplicate window', async () => {
    const [inserted] = await insert('order.replayed', { n: 1 }, { key: 'replayed-1' });
    const id = inserted!.id;
    await sent(id);
    await eventually(() => withId(events.records, id).length === 1);
    await replay(id);
    await eventually(() => withId(events.records, id).length === 2);
    await sent(id);
    const [first, again] = withId(events.records, id);
    // The same record again: same key, text and headers (a replay starts at attempt 0).
    expect(again!.key).toBe(first!.key);
    expect(again!.value).toBe(first!.value);
    expect(again!.headers).toEqual(first!.headers);
    expect(header(again!, 'x-attempt')).toBe('0');
  });

  it('relays a webhook to Kafka with x-inbox-id and x-source, keyed by its aggregate id, x-topic being QueueBox’s', async () => {
    const messageId = await postHook(
      { id: 'evt-1', type: 'hook.received', account: 'acct-9' },
      { 'x-topic': 'forged', 'x-static': 'forged', 'x-tenant': 't9' },
    );
    const received = await eventually(
      () => events.records.find((record) => header(record, 'x-inbox-id') === messageId),
      30_000,
    );
    expect(Object.fromEntries(received.headers)).toMatchObject({
      'x-source': 'hooks',
      'x-idempotency-key': 'evt-1',
      'x-topic': 'hook.received',
      'x-attempt': '0',
      'x-tenant': 't9',
      'X-Static': 'static',
    });
    // The sender's x-topic and x-static are left out, not sent beside QueueBox's.
    expect(received.headers.filter(([name]) => name.toLowerCase() === 'x-topic')).toEqual([
      ['x-topic', 'hook.received'],
    ]);
    expect(received.headers.filter(([name]) => name.toLowerCase() === 'x-static')).toEqual([
      ['X-Static', 'static'],
    ]);
    expect(received.key).toBe('acct-9');
    expect(JSON.parse(received.value)).toEqual({
      id: 'evt-1',
      type: 'hook.received',
      account: 'acct-9',
    });
  });
});
