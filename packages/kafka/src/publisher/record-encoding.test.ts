/**
 * kafkajs's record encoder as this workspace installs it (patches/kafkajs@2.2.4.patch writes the
 * headers into the record's own buffer, and takes every encoder's memory from Node's buffer pool
 * without zero-filling it): the bytes of QueueBox's records must be the ones kafkajs itself writes
 * with one encoder per header, whatever the headers hold, and never depend on what the memory
 * held before.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonPayload } from '@queuebox/core';
import { outboxMessage } from '@queuebox/testing';
import { staticHeaderMap, wireRecord } from './wire-record.js';

interface EncoderLike {
  readonly buffer: Buffer;
  writeVarInt(value: number): EncoderLike;
  writeInt8(value: number): EncoderLike;
  writeVarLong(value: number): EncoderLike;
  writeVarIntBytes(value: unknown): EncoderLike;
  writeVarIntArray(value: EncoderLike[]): EncoderLike;
}
interface EncoderClass {
  new (): EncoderLike;
  sizeOfVarInt(value: number): number;
  sizeOfVarLong(value: number): number;
  sizeOfVarIntBytes(value: unknown): number;
}
type Headers = Record<string, string | Buffer | (string | Buffer)[]>;
interface RecordInput {
  offsetDelta: number;
  timestampDelta: number;
  key: string | Buffer | null;
  value: string | Buffer | null;
  headers: Headers;
}

const require = createRequire(import.meta.url);
const kafkajsDir = require.resolve('kafkajs').replace(/index\.js$/, '');
const Encoder = require(`${kafkajsDir}src/protocol/encoder`) as EncoderClass;
const Header = require(`${kafkajsDir}src/protocol/recordBatch/header/v0`) as (header: {
  key: string;
  value: string | Buffer;
}) => EncoderLike;
const encodeRecord = require(`${kafkajsDir}src/protocol/recordBatch/record/v0`) as (
  record: RecordInput,
) => EncoderLike;
/** The Produce request kafkajs sends to a 3.x or 4.x broker (v7; v3-v7 share the record batch). */
const produceRequest = require(`${kafkajsDir}src/protocol/requests/produce/v7/request`) as (
  request: Record<string, unknown>,
) => { encode(): Promise<EncoderLike> };

/** kafkajs 2.2.4's own record encoding, unpatched: one Header encoder per header. */
function unpatched({ offsetDelta, timestampDelta, key, value, headers }: RecordInput): Buffer {
  const list = Object.keys(headers).flatMap((name) => {
    const entry = headers[name]!;
    return Array.isArray(entry)
      ? entry.map((one) => ({ key: name, value: one }))
      : [{ key: name, value: entry }];
  });
  let headerBytes = Encoder.sizeOfVarInt(list.length);
  for (const header of list) {
    const keySize = Buffer.byteLength(header.key);
    const valueSize = Buffer.byteLength(header.value);
    headerBytes +=
      Encoder.sizeOfVarInt(keySize) + keySize + Encoder.sizeOfVarInt(valueSize) + valueSize;
  }
  const body =
    1 +
    Encoder.sizeOfVarLong(timestampDelta) +
    Encoder.sizeOfVarInt(offsetDelta) +
    Encoder.sizeOfVarIntBytes(key) +
    Encoder.sizeOfVarIntBytes(value) +
    headerBytes;
  return new Encoder()
    .writeVarInt(body)
    .writeInt8(0)
    .writeVarLong(timestampDelta)
    .writeVarInt(offsetDelta)
    .writeVarIntBytes(key)
    .writeVarIntBytes(value)
    .writeVarIntArray(list.map(Header)).buffer;
}

describe("kafkajs's record encoding of QueueBox's records", () => {
  it('writes the bytes of one encoder per header: owned, static, repeated and non-ASCII headers', () => {
    const payload = JsonPayload.fromText(`{"n":12345678901234567890,"s":"${'é'.repeat(600)}"}`);
    const rows: { headers: Record<string, string>; statics: Record<string, string> }[] = [
      { headers: {}, statics: {} },
      {
        headers: { 'X-Tenant': 'acme', Trace: 'ü'.repeat(200) },
        statics: { 'X-Origin': 'queuebox' },
      },
      { headers: { a: '1', b: '' }, statics: { c: 'x'.repeat(300) } },
    ];
    for (const [index, row] of rows.entries()) {
      const message = outboxMessage({
        topic: 'order.created',
        attempt: index + 1,
        payload,
        headers: row.headers,
      });
      const wire = wireRecord(
        { message, payload, address: 'orders', routingKey: index === 1 ? 'key-ü' : null },
        '{{ key }}',
        staticHeaderMap(row.statics),
      );
      if (!wire.ok) throw new Error(wire.error);
      const { key, value, headers } = wire.record.message;
      const input: RecordInput = {
        offsetDelta: index * 70,
        timestampDelta: index * 1_000_003,
        key: key ?? null,
        value,
        headers: headers as Headers,
      };
      expect(encodeRecord(input).buffer).toEqual(unpatched(input));
    }
  });

  it('writes the same bytes for a header list, buffer values and a record without headers', () => {
    const inputs: RecordInput[] = [
      { offsetDelta: 0, timestampDelta: 0, key: null, value: Buffer.alloc(1024, 97), headers: {} },
      {
        offsetDelta: 5,
        timestampDelta: 9,
        key: Buffer.from([0, 255]),
        value: 'v',
        headers: { list: ['1', Buffer.from([1, 2, 3]), 'ß'], one: Buffer.alloc(0) },
      },
    ];
    for (const input of inputs) expect(encodeRecord(input).buffer).toEqual(unpatched(input));
  });
});

describe("kafkajs's encoder memory", () => {
  afterEach(() => vi.restoreAllMocks());

  /** A Produce request of three partitions' batches, with keys, tombstones and headers. */
  async function produceBytes(): Promise<Buffer> {
    const record = (i: number) => ({
      key: i % 3 === 0 ? null : `key-${i}-ü`,
      value: i % 5 === 4 ? null : Buffer.from(`{"n":${i},"pad":"${'x'.repeat(i * 37)}"}`),
      headers: i % 2 === 0 ? {} : { 'x-message-id': `id-${i}`, bin: Buffer.from([0, i, 255]) },
      timestamp: String(1_700_000_000_000 + i),
    });
    const request = produceRequest({
      acks: -1,
      timeout: 30_000,
      topicData: [
        {
          topic: 'orders',
          partitions: [0, 1, 2].map((partition) => ({
            partition,
            firstSequence: partition * 10,
            messages: Array.from({ length: 4 + partition * 7 }, (_, i) => record(i + partition)),
          })),
        },
      ],
    });
    return Buffer.from((await request.encode()).buffer);
  }

  it('takes it from the pool and writes every byte it hands out, whatever the memory held', async () => {
    const allocUnsafe = Buffer.allocUnsafe.bind(Buffer);
    const stub = vi.spyOn(Buffer, 'allocUnsafe');
    stub.mockImplementation((size: number) => allocUnsafe(size).fill(0));
    const fromZeroes = await produceBytes();
    const calls = stub.mock.calls.length;
    stub.mockImplementation((size: number) => allocUnsafe(size).fill(0xab));
    const fromGarbage = await produceBytes();

    // Every encoder of the request (records, batches, partitions, the request) used the pool.
    expect(calls).toBeGreaterThan(20);
    expect(fromGarbage.equals(fromZeroes)).toBe(true);
    // The request is not trivially short: three batches of 1 KiB-ish records went into it.
    expect(fromZeroes.length).toBeGreaterThan(2_000);
  });
});
