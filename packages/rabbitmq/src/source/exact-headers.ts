/**
 * AMQP header tables decoded without losing a digit. amqplib (0.10 to 2.3) decodes a signed 64-bit
 * field (`l`) into a JavaScript number, so 2^62 arrives as 4611686018427388000 and a Snowflake id
 * in a header is silently altered (spec §7.6 stores numbers in their string form). The decoding is
 * amqplib's own code, bound when it loads, so it cannot be swapped from outside; what a consumer
 * connection can swap is its own `recvFrame`. The wrapper sees each content-header frame's bytes
 * before amqplib parses them, lets amqplib decode the frame as usual, then replaces the decoded
 * `headers` with this module's decoding of the same bytes: the same shapes amqplib gives, except
 * that a 64-bit integer is a BigInt. Only the source's connections are wrapped; amqplib itself is
 * used as published, so the result is the same for every install of this package.
 */
import { setOwn } from '@queuebox/core';
import type { ChannelModel } from 'amqplib';

const FRAME_HEADER = 2;
const FRAME_END = 0xce;
const BASIC_CLASS = 60;
/** Basic properties before `headers`: content-type (bit 15) and content-encoding (bit 14). */
const CONTENT_TYPE_FLAG = 0x8000;
const CONTENT_ENCODING_FLAG = 0x4000;
const HEADERS_FLAG = 0x2000;

/** The part of amqplib's Connection this module touches (not in its typings). */
interface RawConnection {
  rest: Buffer;
  recvFrame: (this: RawConnection) => unknown;
}

interface DecodedFrame {
  readonly id?: number;
  readonly fields?: { headers?: unknown };
}

/** Makes `model`'s connection decode every received header table exactly. Call before consuming. */
export function decodeHeadersExactly(model: ChannelModel): void {
  const connection = model.connection as unknown as RawConnection;
  const original = connection.recvFrame;
  if (typeof original !== 'function' || !Buffer.isBuffer(connection.rest)) {
    throw new Error('amqplib changed: its connection has no recvFrame to read header tables from');
  }
  connection.recvFrame = function recvFrame(this: RawConnection) {
    // The frame amqplib is about to parse, when it is whole in the buffer; otherwise amqplib
    // reads more and calls this (wrapped) method again, which then sees it whole.
    const table = headerTableOf(this.rest);
    const frame = original.call(this) as DecodedFrame | false;
    if (table !== null && frame && frame.id === BASIC_CLASS && frame.fields !== undefined) {
      try {
        frame.fields.headers = decodeTable(table);
      } catch {
        // amqplib decoded these bytes already; its reading stands if this one disagrees.
      }
    }
    return frame;
  };
}

/** The header table bytes of a basic content-header frame at the start of `buffer`, or null. */
export function headerTableOf(buffer: Buffer): Buffer | null {
  if (buffer.length < 7 || buffer[0] !== FRAME_HEADER) return null;
  const size = buffer.readUInt32BE(3);
  if (buffer.length < 7 + size + 1 || buffer[7 + size] !== FRAME_END) return null;
  const payload = buffer.subarray(7, 7 + size);
  if (payload.length < 14 || payload.readUInt16BE(0) !== BASIC_CLASS) return null;
  const flags = payload.readUInt16BE(12);
  if ((flags & HEADERS_FLAG) === 0) return null;
  let offset = 14;
  if (flags & CONTENT_TYPE_FLAG) offset += 1 + payload[offset]!;
  if (flags & CONTENT_ENCODING_FLAG) offset += 1 + payload[offset]!;
  const length = payload.readUInt32BE(offset);
  return payload.subarray(offset + 4, offset + 4 + length);
}

/** An AMQP field table, as amqplib decodes it but with `l` (signed 64-bit) as a BigInt. */
export function decodeTable(bytes: Buffer): Record<string, unknown> {
  const table: Record<string, unknown> = {};
  let offset = 0;
  while (offset < bytes.length) {
    const keyLength = bytes[offset]!;
    const key = bytes.toString('utf8', offset + 1, offset + 1 + keyLength);
    offset += 1 + keyLength;
    const [value, next] = decodeValue(bytes, offset);
    offset = next;
    setOwn(table, key, value);
  }
  return table;
}

function decodeValue(bytes: Buffer, at: number): [unknown, number] {
  const tag = String.fromCharCode(bytes[at]!);
  const offset = at + 1;
  switch (tag) {
    case 'b':
      return [bytes.readInt8(offset), offset + 1];
    case 'B':
      return [bytes.readUInt8(offset), offset + 1];
    case 's':
      return [bytes.readInt16BE(offset), offset + 2];
    case 'u':
      return [bytes.readUInt16BE(offset), offset + 2];
    case 'I':
      return [bytes.readInt32BE(offset), offset + 4];
    case 'i':
      return [bytes.readUInt32BE(offset), offset + 4];
    case 'l':
      return [bytes.readBigInt64BE(offset), offset + 8];
    case 'f':
      return [bytes.readFloatBE(offset), offset + 4];
    case 'd':
      return [bytes.readDoubleBE(offset), offset + 8];
    case 't':
      return [bytes[offset] !== 0, offset + 1];
    case 'V':
      return [null, offset];
    case 'D': {
      const places = bytes[offset]!;
      const digits = bytes.readUInt32BE(offset + 1);
      return [{ '!': 'decimal', value: { places, digits } }, offset + 5];
    }
    case 'T':
      return [{ '!': 'timestamp', value: Number(bytes.readBigUInt64BE(offset)) }, offset + 8];
    case 'S': {
      const length = bytes.readUInt32BE(offset);
      const start = offset + 4;
      return [bytes.toString('utf8', start, start + length), start + length];
    }
    case 'x': {
      const length = bytes.readUInt32BE(offset);
      const start = offset + 4;
      return [bytes.subarray(start, start + length), start + length];
    }
    case 'F': {
      const length = bytes.readUInt32BE(offset);
      const start = offset + 4;
      return [decodeTable(bytes.subarray(start, start + length)), start + length];
    }
    case 'A': {
      const length = bytes.readUInt32BE(offset);
      const end = offset + 4 + length;
      const values: unknown[] = [];
      let position = offset + 4;
      while (position < end) {
        const [value, next] = decodeValue(bytes, position);
        values.push(value);
        position = next;
      }
      return [values, end];
    }
    default:
      throw new TypeError(`Unexpected AMQP field type tag "${tag}"`);
  }
}
