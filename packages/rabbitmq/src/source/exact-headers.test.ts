import { describe, expect, it } from 'vitest';
import { decodeTable, headerTableOf } from './exact-headers.js';
import { convertHeaders } from './header-conversion.js';

function field(name: string, tag: string, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([name.length]), Buffer.from(name), Buffer.from(tag), value]);
}

function int64(value: bigint): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64BE(value);
  return bytes;
}

function table(...fields: Buffer[]): Buffer {
  const body = Buffer.concat(fields);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([length, body]);
}

const LONGS = {
  above: 2n ** 53n + 1n,
  big: 2n ** 62n,
  min: -(2n ** 63n),
  max: 2n ** 63n - 1n,
};

describe('exact AMQP header tables', () => {
  it('decodes signed 64-bit integers to BigInt, in tables and arrays too, and the rest as amqplib does', () => {
    const nested = table(field('id', 'l', int64(LONGS.max)));
    const array = Buffer.concat([
      Buffer.from('l'),
      int64(LONGS.min),
      Buffer.from('b'),
      Buffer.from([0xff]),
    ]);
    const arrayLength = Buffer.alloc(4);
    arrayLength.writeUInt32BE(array.length);
    const bytes = Buffer.concat([
      ...Object.entries(LONGS).map(([name, value]) => field(name, 'l', int64(value))),
      field('text', 'S', Buffer.concat([Buffer.from([0, 0, 0, 5]), Buffer.from('café')])),
      field('table', 'F', nested),
      field('list', 'A', Buffer.concat([arrayLength, array])),
      field('flag', 't', Buffer.from([1])),
      field('none', 'V', Buffer.alloc(0)),
      field('small', 'I', Buffer.from([0xff, 0xff, 0xff, 0xfe])),
    ]);
    const decoded = decodeTable(bytes);
    expect(decoded).toEqual({
      above: 9007199254740993n,
      big: 4611686018427387904n,
      min: -9223372036854775808n,
      max: 9223372036854775807n,
      text: 'café',
      table: { id: 9223372036854775807n },
      list: [-9223372036854775808n, -1],
      flag: true,
      none: null,
      small: -2,
    });
    expect(convertHeaders(decoded)).toEqual({
      above: '9007199254740993',
      big: '4611686018427387904',
      min: '-9223372036854775808',
      max: '9223372036854775807',
      text: 'café',
      table: '{"id":9223372036854775807}',
      list: '[-9223372036854775808,-1]',
      flag: 'true',
      small: '-2',
    });
  });

  it('finds the header table of a basic content-header frame after content type and encoding', () => {
    const headers = table(field('n', 'l', int64(LONGS.big)));
    const properties = Buffer.concat([
      Buffer.from([4]),
      Buffer.from('text'),
      Buffer.from([4]),
      Buffer.from('gzip'),
      headers,
    ]);
    const head = Buffer.alloc(14);
    head.writeUInt16BE(60, 0);
    head.writeBigUInt64BE(10n, 4);
    head.writeUInt16BE(0x8000 | 0x4000 | 0x2000, 12);
    const payload = Buffer.concat([head, properties]);
    const frameHead = Buffer.alloc(7);
    frameHead.writeUInt8(2, 0);
    frameHead.writeUInt16BE(1, 1);
    frameHead.writeUInt32BE(payload.length, 3);
    const frame = Buffer.concat([frameHead, payload, Buffer.from([0xce])]);
    expect(decodeTable(headerTableOf(frame)!)).toEqual({ n: LONGS.big });
    // Not whole yet, or not a header frame: nothing to read.
    expect(headerTableOf(frame.subarray(0, frame.length - 1))).toBeNull();
    expect(headerTableOf(Buffer.concat([Buffer.from([1]), frame.subarray(1)]))).toBeNull();
  });
});
