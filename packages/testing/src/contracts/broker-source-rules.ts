/**
 * The rules every broker source keeps on the inbox side, run against a real broker through the
 * adapter and the shared broker ingest (inbox-service) onto an in-memory inbox store: a message
 * that can never be stored as it came becomes a dead row whose `last_error` (and WARN line) says
 * which of the reasons it was; `inbox.maxBodyBytes` bounds broker messages as it bounds webhooks;
 * the bodies held unsettled stay within the handler's byte budget once large messages are seen
 * (prefetch or fetch shrink); and on AMQP, 64-bit integer headers keep every digit.
 *
 * Registered inside the broker source contract, so every broker that runs the contract with an
 * `ingest` runs these too.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type {
  DeliveryHandler,
  InboxStore,
  Logger,
  SourceConsumer,
  SourceDelivery,
} from '@queuebox/core';
import { expect, it } from 'vitest';
import { inMemoryInboxStore } from '../fakes/in-memory-inbox-store.js';
import { recordingLogger } from '../fakes/recording-logger.js';
import type { BrokerSourceHarness } from './broker-source.js';

/** The shared broker ingest on `store`, built by the broker's run (testing cannot import it). */
export type IngestFactory = (deps: {
  readonly store: InboxStore;
  readonly logger: Logger;
  /** `inbox.maxBodyBytes`. */
  readonly maxBodyBytes: number;
}) => DeliveryHandler;

interface RuleContext {
  readonly harness: () => BrokerSourceHarness;
  readonly consume: (handler: DeliveryHandler, logger?: Logger) => Promise<SourceConsumer>;
  readonly eventually: <T>(
    check: () => T | undefined | false | Promise<T | undefined | false>,
    what: string,
    timeoutMs?: number,
  ) => Promise<T>;
}

const MiB = 1_048_576;
const digest = (bytes: Uint8Array | string) =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const deadLine = (reason: string) =>
  `A message of source 'contract' cannot be stored as it came, so it is stored as a dead row and acknowledged. Reason: ${reason}`;

export function brokerSourceRules(
  ingest: IngestFactory,
  context: RuleContext,
  options: { readonly int64Headers: boolean },
): void {
  const { harness, consume, eventually } = context;

  it('stores every message that cannot be stored as it came as a dead row whose last_error says why, and logs the same', async () => {
    const store = inMemoryInboxStore();
    const logger = recordingLogger();
    const maxBodyBytes = 64 * 1024;
    const consumer = await consume(ingest({ store, logger, maxBodyBytes }), logger);
    const oversized = JSON.stringify({ id: 'big', pad: 'x'.repeat(maxBodyBytes) });
    const cases: [body: Uint8Array | string, reason: string][] = [
      ['', 'The body is empty, not JSON.'],
      ['hello, not json', 'The body is not JSON: it does not parse as a JSON text.'],
      [
        new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
        'The body is not valid UTF-8 text, so it is not JSON.',
      ],
      [
        gzipSync('{"id": "zipped"}'),
        'The body is gzip-encoded (compressed), not JSON text; QueueBox stores JSON as it came and does not decompress: publish it uncompressed.',
      ],
      ['['.repeat(1001) + ']'.repeat(1001), 'The JSON body is nested deeper than 1000 levels.'],
      [
        JSON.stringify({ id: 'k'.repeat(256) }),
        'The idempotency key is longer than 255 characters.',
      ],
      [
        oversized,
        `The body is ${oversized.length} bytes, more than inbox.maxBodyBytes (${maxBodyBytes} bytes), so it is not stored: the row keeps its size and headers only.`,
      ],
    ];
    for (const [body] of cases) await harness().probe.publish({ body });
    await eventually(() => store.rows.length >= cases.length, `${cases.length} dead rows`);
    await consumer.close();
    const byKey = new Map(store.rows.map((row) => [row.message.idempotencyKey, row]));
    for (const [body, reason] of cases) {
      const row = byKey.get(digest(body));
      expect(row?.options, reason).toMatchObject({ dead: true, lastError: reason });
    }
    expect(byKey.get(digest(oversized))!.message.payload.text).toBe(
      `{"bodyBytes":${oversized.length}}`,
    );
    expect(
      logger
        .at('warn')
        .map((line) => line.message)
        .sort(),
    ).toEqual(cases.map(([, reason]) => deadLine(reason)).sort());
    expect(await harness().probe.outstanding()).toBe(0);
  });

  it('stores a body of exactly inbox.maxBodyBytes as it came', async () => {
    const store = inMemoryInboxStore();
    const body = JSON.stringify({ id: 'exact', pad: 'y'.repeat(1000) });
    const consumer = await consume(
      ingest({ store, logger: recordingLogger(), maxBodyBytes: body.length }),
    );
    await harness().probe.publish({ body });
    await eventually(() => store.rows.length >= 1, 'the row');
    await consumer.close();
    expect(store.rows[0]!.options.dead ?? false).toBe(false);
    expect(store.rows[0]!.message.payload.text).toBe(body);
  });

  it('holds fewer large messages at once, so the bodies in hand stay within the byte budget', async () => {
    const budget = 3.5 * MiB;
    const count = Math.max(12, harness().maxInFlight * 3);
    const inHand = { bytes: 0, settled: 0, peakAfterFirstWindow: 0 };
    const window = harness().maxInFlight;
    const handler: DeliveryHandler = {
      inHandBytes: budget,
      async handle(delivery: SourceDelivery) {
        inHand.bytes += delivery.body.byteLength;
        // The first window may be asked for before any size is known.
        if (inHand.settled >= window)
          inHand.peakAfterFirstWindow = Math.max(inHand.peakAfterFirstWindow, inHand.bytes);
        await new Promise((resolve) => setTimeout(resolve, 300));
        inHand.bytes -= delivery.body.byteLength;
        inHand.settled += 1;
        return { settle: 'ack', outcome: 'stored' };
      },
    };
    // All waiting before the consumer starts: every window it asks for comes full.
    const pad = 'z'.repeat(MiB - 100);
    for (let i = 0; i < count; i++) {
      await harness().probe.publish({ body: JSON.stringify({ id: i, pad }) });
    }
    const consumer = await consume(handler);
    await eventually(() => inHand.settled >= count, `${count} settled`, 60_000);
    await consumer.close();
    expect(inHand.peakAfterFirstWindow).toBeGreaterThan(0);
    expect(inHand.peakAfterFirstWindow).toBeLessThanOrEqual(budget);
    expect(await harness().probe.outstanding()).toBe(0);
  });

  // Only AMQP carries integer headers (signed 64-bit).
  if (!options.int64Headers) return;
  it('keeps every digit of 64-bit integer headers: 2^53+1, 2^62, -2^63, 2^63-1', async () => {
    const publish = harness().probe.publishInt64Headers;
    if (publish === undefined) throw new Error('the probe cannot publish 64-bit integer headers');
    const store = inMemoryInboxStore();
    const consumer = await consume(ingest({ store, logger: recordingLogger(), maxBodyBytes: MiB }));
    await publish('{"id": "int64"}', {
      above: 2n ** 53n + 1n,
      snowflake: 2n ** 62n,
      min: -(2n ** 63n),
      max: 2n ** 63n - 1n,
    });
    await eventually(() => store.rows.length >= 1, 'the row');
    await consumer.close();
    expect(store.rows[0]!.message.headers).toMatchObject({
      above: '9007199254740993',
      snowflake: '4611686018427387904',
      min: '-9223372036854775808',
      max: '9223372036854775807',
    });
  });
}
